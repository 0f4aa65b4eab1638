/**
 * Python's `str.format(**values)` (reference runtime-nodes §3.3): `{name}`, `{u[key]}`, `{n:.2f}`,
 * `{x!r:>8}`, nested `{w}` in a format spec, `{{`/`}}`, and Python's errors (`KeyError: 'name'`,
 * `IndexError` for positional fields, `AttributeError` for `{u.x}`) with Python's messages.
 */
import { PythonError, isPythonInt, pythonFloatRepr, pythonRepr, pythonStr } from '../python-text.js';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Python's type name of a JSON value, as its error messages name it. */
export function pythonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return isPythonInt(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  return Array.isArray(v) ? 'list' : 'dict';
}

/** `template.format(**values)`; a field wider than `maxWidth` characters is refused before it is padded. */
export function pythonFormat(template: string, values: Record<string, unknown>, maxWidth = Number.MAX_SAFE_INTEGER): string {
  return formatWith(template, values, 2, maxWidth);
}

function formatWith(template: string, values: Record<string, unknown>, depth: number, maxWidth: number): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if (ch === '}') {
      if (template[i + 1] !== '}') throw new PythonError('ValueError', "Single '}' encountered in format string");
      out += '}';
      i += 2;
      continue;
    }
    if (ch !== '{') {
      out += ch;
      i += 1;
      continue;
    }
    if (template[i + 1] === '{') {
      out += '{';
      i += 2;
      continue;
    }
    // A replacement field runs to the `}` that balances its `{` (a format spec may nest one level).
    let level = 1;
    let j = i + 1;
    while (j < template.length && level > 0) {
      if (template[j] === '{') level += 1;
      else if (template[j] === '}') level -= 1;
      if (level > 0) j += 1;
    }
    if (level > 0) throw new PythonError('ValueError', "expected '}' before end of string");
    out += renderField(template.slice(i + 1, j), values, depth, maxWidth);
    i = j + 1;
  }
  return out;
}

function renderField(field: string, values: Record<string, unknown>, depth: number, maxWidth: number): string {
  // field_name [! conversion] [: format_spec]; `[...]` in the name may hold `!` or `:`.
  let k = 0;
  while (k < field.length && field[k] !== '!' && field[k] !== ':') {
    if (field[k] === '[') {
      const close = field.indexOf(']', k);
      if (close < 0) throw new PythonError('ValueError', "expected '}' before end of string");
      k = close;
    }
    k += 1;
  }
  const name = field.slice(0, k);
  let conversion: string | null = null;
  let spec = '';
  if (field[k] === '!') {
    conversion = field[k + 1] ?? '';
    const rest = field.slice(k + 2);
    if (rest && !rest.startsWith(':')) throw new PythonError('ValueError', 'expected \':\' after conversion specifier');
    spec = rest.slice(1);
  } else if (field[k] === ':') {
    spec = field.slice(k + 1);
  }
  let value = lookup(name, values);
  if (conversion !== null) {
    if (conversion === 'r') value = pythonRepr(value);
    else if (conversion === 's') value = pythonStr(value);
    else if (conversion === 'a') value = pythonRepr(value).replace(/[\u0080-\uffff]/g, (c) => asciiEscape(c.charCodeAt(0)));
    else throw new PythonError('ValueError', conversion ? `Unknown conversion specifier ${conversion}` : 'end of string while looking for conversion specifier');
  }
  if (spec.includes('{')) {
    if (depth <= 0) throw new PythonError('ValueError', 'Max string recursion exceeded');
    spec = formatWith(spec, values, depth - 1, maxWidth);
  }
  // A huge width (`{x:999999999}`) would pad a text no run may hold: refused before it is built.
  const sizes = /^(?:[\s\S]?[<>=^])?[-+ ]?z?#?0?(\d*)[_,]?(?:\.(\d+))?/.exec(spec);
  for (const [what, size] of [['width', sizes?.[1]], ['precision', sizes?.[2]]] as const) {
    if (size && Number(size) > maxWidth) {
      throw new PythonError('ValueError', `The format field ${what} ${size} is more than a run's variables may hold (${maxWidth} bytes, setting \`limits.maxVarsBytes\` of the gateway-runs plugin).`);
    }
  }
  return formatValue(value, spec);
}

const asciiEscape = (cp: number) => (cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`);

/** The value of a field name: a keyword, then `.attr` and `[key]` parts. */
function lookup(name: string, values: Record<string, unknown>): unknown {
  const first = /^[^.[]*/.exec(name)![0];
  if (first === '' || /^\d+$/.test(first)) {
    throw new PythonError('IndexError', `Replacement index ${first === '' ? 0 : Number(first)} out of range for positional args tuple`);
  }
  // Own keys only: `{constructor}` is a missing key, as in Python, not Object's constructor.
  if (!Object.hasOwn(values, first)) throw new PythonError('KeyError', pythonRepr(first));
  let value = values[first];
  const part = /\.([^.[]+)|\[([^\]]+)\]/y;
  for (let pos = first.length; pos < name.length; pos = part.lastIndex) {
    part.lastIndex = pos;
    const m = part.exec(name);
    if (!m) throw new PythonError('ValueError', "Only '.' or '[' may follow ']' in format field specifier");
    if (m[1] !== undefined) throw new PythonError('AttributeError', `'${pythonTypeName(value)}' object has no attribute '${m[1]}'`);
    value = getItem(value, /^\d+$/.test(m[2]!) ? Number(m[2]) : m[2]!);
  }
  return value;
}

function getItem(container: unknown, key: string | number): unknown {
  if (isRecord(container)) {
    const k = String(key);
    if (typeof key === 'number' || !Object.hasOwn(container, k)) throw new PythonError('KeyError', typeof key === 'number' ? String(key) : pythonRepr(key));
    return container[k];
  }
  if (Array.isArray(container) || typeof container === 'string') {
    const type = Array.isArray(container) ? 'list' : 'string';
    if (typeof key !== 'number') throw new PythonError('TypeError', Array.isArray(container) ? 'list indices must be integers or slices, not str' : "string indices must be integers, not 'str'");
    const items = Array.isArray(container) ? container : Array.from(container);
    if (key >= items.length) throw new PythonError('IndexError', `${type} index out of range`);
    return items[key];
  }
  throw new PythonError('TypeError', `'${pythonTypeName(container)}' object is not subscriptable`);
}

interface Spec {
  fill: string;
  align: string | null;
  /** Whether the spec itself gave the alignment (not implied by the `0` flag). */
  alignGiven: boolean;
  sign: string;
  z: boolean;
  alternate: boolean;
  zero: boolean;
  width: number;
  grouping: string;
  precision: number | null;
  type: string;
}

const SPEC = /^(?:([\s\S])?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d+)?([_,])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/;

function parseSpec(spec: string, typeName: string): Spec {
  const m = SPEC.exec(spec);
  if (!m) throw new PythonError('ValueError', `Invalid format specifier '${spec}' for object of type '${typeName}'`);
  return {
    fill: m[1] ?? (m[6] && !m[2] ? '0' : ' '),
    align: m[2] ?? (m[6] ? '=' : null),
    alignGiven: Boolean(m[2]),
    sign: m[3] ?? '',
    z: Boolean(m[4]),
    alternate: Boolean(m[5]),
    zero: Boolean(m[6]),
    width: m[7] ? Number(m[7]) : 0,
    grouping: m[8] ?? '',
    precision: m[9] !== undefined ? Number(m[9]) : null,
    type: m[10] ?? '',
  };
}

/** Python `format(value, spec)` of a JSON value. */
export function formatValue(value: unknown, spec: string): string {
  if (spec === '') return pythonStr(value);
  if (typeof value === 'string') return formatString(value, parseSpec(spec, 'str'));
  if (typeof value === 'number') return isPythonInt(value) ? formatInt(value, parseSpec(spec, 'int')) : formatFloat(value, parseSpec(spec, 'float'));
  // bool is an int subclass: with a spec it formats as 0/1.
  if (typeof value === 'boolean') return formatInt(value ? 1 : 0, parseSpec(spec, 'bool'));
  throw new PythonError('TypeError', `unsupported format string passed to ${pythonTypeName(value)}.__format__`);
}

function formatString(s: string, spec: Spec): string {
  if (spec.type && spec.type !== 's') throw new PythonError('ValueError', `Unknown format code '${spec.type}' for object of type 'str'`);
  if (spec.sign) throw new PythonError('ValueError', 'Sign not allowed in string format specifier');
  if (spec.grouping) throw new PythonError('ValueError', `Cannot specify '${spec.grouping}' with 's'.`);
  if (spec.alternate) throw new PythonError('ValueError', 'Alternate form (#) not allowed in string format specifier');
  if (spec.align === '=') throw new PythonError('ValueError', "'=' alignment not allowed in string format specifier");
  const chars = Array.from(s);
  const text = spec.precision === null ? s : chars.slice(0, spec.precision).join('');
  return pad(text, '', spec, '<');
}

function formatInt(n: number, spec: Spec): string {
  const type = spec.type;
  if ('eEfFgG%'.includes(type) && type) return formatFloat(n, spec);
  if (type && !'bcdoxXn'.includes(type)) throw new PythonError('ValueError', `Unknown format code '${type}' for object of type 'int'`);
  if (spec.precision !== null) throw new PythonError('ValueError', 'Precision not allowed in integer format specifier');
  if (type === 'c') return pad(String.fromCodePoint(n), '', spec, '<');
  const big = BigInt(n);
  const negative = big < 0n;
  const abs = negative ? -big : big;
  const radix = type === 'b' ? 2 : type === 'o' ? 8 : type === 'x' || type === 'X' ? 16 : 10;
  let digits = abs.toString(radix);
  if (type === 'X') digits = digits.toUpperCase();
  if (spec.grouping) digits = group(digits, spec.grouping, radix === 10 ? 3 : 4);
  const prefix = spec.alternate && radix !== 10 ? `0${type === 'X' ? 'X' : type}` : '';
  return pad(digits, signOf(negative, spec) + prefix, spec, '>');
}

function formatFloat(x: number, spec: Spec): string {
  const type = spec.type;
  if (type && !'eEfFgGn%'.includes(type)) throw new PythonError('ValueError', `Unknown format code '${type}' for object of type 'float'`);
  let negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  let body: string;
  if (!Number.isFinite(abs)) {
    body = Number.isNaN(abs) ? 'nan' : 'inf';
    if ('EFG'.includes(type) && type) body = body.toUpperCase();
    if (type === '%') body += '%';
  } else if (type === '' && spec.precision === null) {
    body = pythonFloatRepr(abs);
  } else {
    const p = spec.precision ?? 6;
    if (type === 'f' || type === 'F') body = fixed(abs, p);
    else if (type === '%') body = fixed(abs * 100, p) + '%';
    else if (type === 'e' || type === 'E') body = exponent(abs, p, type);
    else body = general(abs, p === 0 ? 1 : p, spec.alternate, type === '', type === 'G' ? 'E' : 'e');
    if (spec.z && negative && /^0(\.0*)?([eE][-+]\d+)?%?$/.test(body)) negative = false;
  }
  if (spec.grouping) {
    const [int, ...rest] = body.split(/(?=[.eE%])/);
    body = group(int!, spec.grouping, 3) + rest.join('');
  }
  if (Number.isNaN(x)) negative = false;
  return pad(body, signOf(negative, spec), spec, '>');
}

/** JS rounds an exact tie up; Python to even: `digits` rounded half-up from `exact` (more digits of the same value) is moved down when it was a tie to an odd digit. */
function halfEven(rounded: string, exact: string, keptLength: number): string {
  const tail = exact.slice(keptLength).replace(/e.*$/i, '');
  if (!/^50*$/.test(tail)) return rounded;
  const down = exact.slice(0, keptLength).replace(/\.$/, '');
  const last = down.replace('.', '').at(-1);
  return last !== undefined && Number(last) % 2 === 0 ? down + rounded.slice(rounded.search(/e|$/i)) : rounded;
}

/** Python's `f` with `p` decimals: exact digits (JS stops at 100 decimals and at 1e21), ties to even. */
function fixed(abs: number, p: number): string {
  if (abs >= 1e21) return p > 0 ? `${BigInt(abs).toString()}.${'0'.repeat(p)}` : BigInt(abs).toString();
  const digits = Math.min(p, 100);
  const more = Math.min(digits + 30, 100);
  const exact = abs.toFixed(more);
  const rounded = halfEven(abs.toFixed(digits), exact, exact.length - (more - digits));
  return p > 100 ? rounded + '0'.repeat(p - 100) : rounded;
}

/** Python's `e` with `p` decimals in the mantissa (exponent of at least two digits), ties to even. */
function exponent(abs: number, p: number, type: string): string {
  const digits = Math.min(p, 100);
  const more = Math.min(digits + 30, 100);
  const exactText = abs.toExponential(more);
  const exact = exactText.split('e')[0]!;
  const [rounded, e] = abs.toExponential(digits).split('e') as [string, string];
  let mantissa = rounded;
  // A tie moved down keeps the exponent (a mantissa rounding up to 10 cannot be a tie moved down).
  if (exactText.split('e')[1] === e) mantissa = halfEven(mantissa, exact, exact.length - (more - digits));
  if (p > 100) mantissa += '0'.repeat(p - 100);
  const n = Number(e);
  return `${mantissa}${type}${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
}

/** Python's `g` (and the float default with a precision, which keeps one decimal). */
function general(abs: number, p: number, alternate: boolean, keepPoint: boolean, e: string): string {
  if (abs === 0) return alternate ? `0.${'0'.repeat(p - 1)}` : keepPoint ? '0.0' : '0';
  const exp = Number(exponent(abs, p - 1, 'e').split('e')[1]);
  let body: string;
  if (exp >= -4 && exp < p) {
    body = fixed(abs, p - 1 - exp);
    if (!alternate && body.includes('.')) body = body.replace(/\.?0+$/, '');
    if (keepPoint && !body.includes('.')) body += '.0';
  } else {
    body = exponent(abs, p - 1, e);
    if (!alternate) body = body.replace(/\.?0+(?=[eE])/, '');
  }
  return body;
}

function group(digits: string, separator: string, size: number): string {
  let out = '';
  for (let i = digits.length; i > 0; i -= size) out = digits.slice(Math.max(0, i - size), i) + (out ? separator + out : '');
  return out;
}

function signOf(negative: boolean, spec: Spec): string {
  if (negative) return '-';
  return spec.sign === '+' ? '+' : spec.sign === ' ' ? ' ' : '';
}

function pad(body: string, sign: string, spec: Spec, defaultAlign: string): string {
  const length = Array.from(sign + body).length;
  const room = spec.width - length;
  if (room <= 0) return sign + body;
  const align = spec.align ?? defaultAlign;
  const fill = spec.fill.repeat(room);
  if (align === '<') return sign + body + fill;
  if (align === '>') return fill + sign + body;
  if (align === '=') {
    if (spec.zero && !spec.alignGiven && spec.grouping && /^\d/.test(body)) return sign + zeroGroup(body, spec.width - sign.length, spec.grouping);
    return sign + fill + body;
  }
  const left = Math.floor(room / 2);
  return spec.fill.repeat(left) + sign + body + spec.fill.repeat(room - left);
}

/** `08,d`: zero padding that continues the digit grouping (`0,000,042`). */
function zeroGroup(body: string, width: number, separator: string): string {
  const [int, ...rest] = body.split(/(?=[.eE%])/);
  const tail = rest.join('');
  let digits = int!.split(separator).join('');
  let grouped = group(digits, separator, 3);
  while (grouped.length + tail.length < width) {
    digits = `0${digits}`;
    grouped = group(digits, separator, 3);
  }
  return grouped + tail;
}
