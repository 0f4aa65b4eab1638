// Canonical JSON of the hub's hash chain: the text Python's `json.dumps(value, sort_keys=True,
// separators=(',', ':'), ensure_ascii=True)` emits, reproduced byte for byte in plain TypeScript so
// a browser, the Node hub plugin and a Python hub hash the same turn to the same text.
//
// Rules (hub-protocol reference §4.1 / §4.4):
// - object keys sorted at every level by Unicode code point (Python's str order, which differs from
//   JS's UTF-16 sort for astral characters);
// - no whitespace; strings escaped with \" \\ \b \t \n \f \r and every other code unit below 0x20 or
//   above 0x7E as \u + four lowercase hex digits (UTF-16 units: an astral character is two escapes);
//   `/` is not escaped;
// - integral numbers as bare integers, non-integral numbers in Python float repr; top-level keys named
//   in `floatKeys` (default `created_at`) are always Python floats (`2` -> `2.0`, `-0` -> `-0.0`);
// - NaN and Infinity throw (the hub never stores them).
// This module has no imports: it loads as a plain ES module in a browser.

export interface CanonicalOptions {
  /** Top-level keys whose numeric values are always formatted as Python floats. Default `['created_at']`. */
  readonly floatKeys?: readonly string[];
}

/** The keys formatted as floats when no `floatKeys` option is given. */
export const DEFAULT_FLOAT_KEYS: readonly string[] = Object.freeze(['created_at']);

/** The canonical text of `value` (see the module comment for the exact rules). */
export function canonicalText(value: unknown, options: CanonicalOptions = {}): string {
  const floatKeys = options.floatKeys ?? DEFAULT_FLOAT_KEYS;
  const seen = new Set<object>();
  const top = toJsonValue(value);
  if (top === undefined) throw new TypeError('canonicalText: the value has no JSON form (undefined, function or symbol)');
  if (isPlainRecord(top) && floatKeys.length > 0) {
    seen.add(top);
    const parts: string[] = [];
    for (const key of sortedKeys(top)) {
      const child = toJsonValue(top[key]);
      if (child === undefined) continue;
      const text = typeof child === 'number' && floatKeys.includes(key) ? pythonFloat(child) : encode(child, seen);
      parts.push(`${quote(key)}:${text}`);
    }
    return `{${parts.join(',')}}`;
  }
  return encode(top, seen);
}

/**
 * A finite number in Python's float `repr`: shortest round-trip digits, fixed notation when the
 * decimal exponent e of the leading digit satisfies -4 <= e < 16 (integral values keep `.0`), else
 * `d.ddde±XX` with a sign and at least two exponent digits. `-0` gives `-0.0`.
 */
export function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`canonicalText: ${String(x)} has no JSON form (NaN and Infinity are refused)`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() without an argument yields the shortest digits that round-trip (ECMA-262
  // Number::toString), the same digits Python's repr picks.
  const [mantissa, exponentText] = x.toExponential().split('e') as [string, string];
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  const sign = negative ? '-' : '';
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  }
  const body = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  const expSign = exponent < 0 ? '-' : '+';
  return `${sign}${body}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** A number as Python's encoder prints it when it does not come from a float key: integral -> bare integer. */
export function canonicalNumber(x: number): string {
  if (!Number.isFinite(x)) throw new RangeError(`canonicalText: ${String(x)} has no JSON form (NaN and Infinity are refused)`);
  if (Number.isInteger(x)) {
    if (x === 0) return '0';
    // Beyond 1e21 JS prints exponent notation; a Python int prints every digit.
    return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
  }
  return pythonFloat(x);
}

/** A JSON string literal with Python's `ensure_ascii=True` escaping. */
export function quote(text: string): string {
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x20 && unit <= 0x7e && unit !== 0x22 && unit !== 0x5c) continue;
    out += text.slice(runStart, i) + escapeUnit(unit);
    runStart = i + 1;
  }
  return `${out}${text.slice(runStart)}"`;
}

/** Compares two strings by Unicode code point (Python's str order). */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - j;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}

type JsonPrimitive = string | number | boolean | bigint | null;

function escapeUnit(unit: number): string {
  switch (unit) {
    case 0x22: return '\\"';
    case 0x5c: return '\\\\';
    case 0x08: return '\\b';
    case 0x09: return '\\t';
    case 0x0a: return '\\n';
    case 0x0c: return '\\f';
    case 0x0d: return '\\r';
    default: return `\\u${unit.toString(16).padStart(4, '0')}`;
  }
}

function encode(value: unknown, seen: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean': return value ? 'true' : 'false';
    case 'number': return canonicalNumber(value);
    case 'bigint': return value.toString();
    case 'string': return quote(value);
    case 'object': break;
    default: throw new TypeError(`canonicalText: a ${typeof value} has no JSON form`);
  }
  const object = value as object;
  if (seen.has(object)) throw new TypeError('canonicalText: the value is cyclic');
  seen.add(object);
  try {
    if (Array.isArray(object)) {
      // JSON.stringify semantics for holes and undefined items: null.
      const items: string[] = [];
      for (let i = 0; i < object.length; i++) {
        const item = toJsonValue(object[i]);
        items.push(item === undefined ? 'null' : encode(item, seen));
      }
      return `[${items.join(',')}]`;
    }
    const record = object as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of sortedKeys(record)) {
      const child = toJsonValue(record[key]);
      if (child === undefined) continue; // JSON.stringify semantics: undefined members are omitted
      parts.push(`${quote(key)}:${encode(child, seen)}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(object);
  }
}

/** Applies `toJSON` (Dates and the like); maps functions and symbols to undefined. */
function toJsonValue(value: unknown): JsonPrimitive | object | undefined {
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value !== null && typeof value === 'object') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJsonValue((toJSON as () => unknown).call(value));
  }
  return value as JsonPrimitive | object;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sortedKeys(record: object): string[] {
  return Object.keys(record).sort(compareCodePoints);
}
