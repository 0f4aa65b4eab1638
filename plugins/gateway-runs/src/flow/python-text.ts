/**
 * Text the way the origin runtime (Python) writes it (reference runtime-nodes §2 rule 6): `str()`,
 * `repr()` and `json.dumps`. Flows made for the origin show these texts to users and to models, so
 * `True`, `None`, `{'a': 1}` must come out byte for byte.
 *
 * Values here are JSON values, where `1` and `1.0` are the same number: an integer-valued number
 * within the safe-integer range is written as a Python int (`1`), any other as a Python float.
 */

/** A Python exception raised by a helper: `name` is the Python type (`KeyError`), `message` what `str(exc)` gives. */
export class PythonError extends Error {
  constructor(type: string, message: string) {
    super(message);
    this.name = type;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a JSON number is written as a Python int (else as a float). */
export function isPythonInt(n: number): boolean {
  return Number.isSafeInteger(n);
}

/** Python `repr(float)`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (Object.is(n, -0)) return '-0.0';
  const [mantissa, exp] = n.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const sign = e < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const fixed = String(n);
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

function pythonNumber(n: number): string {
  return isPythonInt(n) ? String(n) : pythonFloatRepr(n);
}

/** Python's `str.isprintable` for one character: what `repr` keeps unescaped. */
function isPrintable(ch: string): boolean {
  return ch === ' ' || !/[\p{C}\p{Z}]/u.test(ch);
}

/** Python `repr(str)`: single quotes unless the text has a `'` and no `"`; escapes for the rest. */
export function pythonStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (isPrintable(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      out += cp < 0x100 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    }
  }
  return out + quote;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** Python `repr()` of a JSON value: `None`, `True`, `'text'`, `[1, 'a']`, `{'k': None}`. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (isRecord(value)) return `{${Object.entries(value).map(([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`).join(', ')}}`;
  return pythonStringRepr(String(value));
}

/** Python `str()` of a JSON value: a string as is, anything else as its `repr`. */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

export interface JsonDumpsOptions {
  /** `sort_keys=True`. */
  sortKeys?: boolean;
  /** `indent=n`: items on their own lines (separators then default to `,` and `: `). */
  indent?: number;
  /** `separators=(item, key)`; default `(', ', ': ')`, or `(',', ': ')` with an indent. */
  separators?: [string, string];
  /** `ensure_ascii` (Python's default true): non-ASCII as `\uXXXX`. */
  ensureAscii?: boolean;
}

/** Python `json.dumps` of a JSON value with the given options. */
export function pythonJsonDumps(value: unknown, options: JsonDumpsOptions = {}): string {
  const indent = options.indent;
  const [itemSep, keySep] = options.separators ?? (indent === undefined ? [', ', ': '] : [',', ': ']);
  const ensureAscii = options.ensureAscii ?? true;
  const text = (s: string) => {
    const json = JSON.stringify(s);
    return ensureAscii ? json.replace(/[\u0080-\uffff]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`) : json;
  };
  const write = (v: unknown, level: number): string => {
    if (v === null || v === undefined) return 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return 'NaN';
      if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
      return pythonNumber(v);
    }
    if (typeof v === 'string') return text(v);
    if (!Array.isArray(v) && !isRecord(v)) return text(String(v));
    const entries: Array<[string | null, unknown]> = Array.isArray(v) ? v.map((item) => [null, item]) : Object.entries(v);
    if (options.sortKeys && !Array.isArray(v)) entries.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return open + close;
    const items = entries.map(([k, item]) => (k === null ? '' : text(k) + keySep) + write(item, level + 1));
    if (indent === undefined) return open + items.join(itemSep) + close;
    const inner = '\n' + ' '.repeat(indent * (level + 1));
    return open + inner + items.join(itemSep + inner) + '\n' + ' '.repeat(indent * level) + close;
  };
  return write(value, 0);
}
