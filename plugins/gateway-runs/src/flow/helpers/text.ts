/**
 * Text helpers (reference formats §2.6) as the origin's builtins compute them: values written as
 * Python `str()` (a missing pin is `""`), separators typed as `\n`, `\t`, `\r` decoded.
 */
import { pythonStr } from '../python-text.js';
import { pythonTruthy } from '../coerce.js';
import type { FlowNode } from '../visualflow.js';
import { isRecord, type Helpers, type Inputs } from './helper.js';

/** The values of the node's declared data inputs, in pin order. */
export function declaredInputs(node: FlowNode, inputs: Inputs): unknown[] {
  return (node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => inputs[p.id]);
}

/** `\n`, `\t` and `\r` typed into a separator field mean the characters. */
export function decodeEscapes(s: string): string {
  return s.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\r/g, '\r');
}

/** Python `str(inputs.get(pin, ""))`: a missing pin is `""`, null is `None`. */
const text = (v: unknown): string => (v === undefined ? '' : pythonStr(v));
/** A pin whose null also means `""` (`"" if v is None else str(v)`). */
const textOrEmpty = (v: unknown): string => (v === undefined || v === null ? '' : pythonStr(v));
/** The first pin given of several names (the origin's pin, then Keel's older aliases). */
const pick = (i: Inputs, ...names: string[]): unknown => names.map((n) => i[n]).find((v) => v !== undefined);

/** Python `int(x)` of a pin; undefined when it cannot be read. */
function toInt(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[-+]?\d[\d_]*\s*$/.test(v)) return Number(v.replace(/_/g, ''));
  return undefined;
}

function split(i: Inputs): string[] {
  const source = textOrEmpty(pick(i, 'text', 'value'));
  const rawDelimiter = pick(i, 'delimiter', 'separator');
  const delimiter = decodeEscapes(rawDelimiter === undefined ? ',' : textOrEmpty(rawDelimiter));
  const trim = i.trim === undefined ? true : pythonTruthy(i.trim);
  const dropEmpty = i.drop_empty === undefined ? true : pythonTruthy(i.drop_empty);
  let parts: string[];
  if (delimiter === '') {
    parts = source ? [source] : [];
  } else {
    const max = i.maxsplit === undefined || i.maxsplit === null ? undefined : toInt(i.maxsplit);
    parts = source.split(delimiter);
    // Python's maxsplit: at most that many splits, the rest kept whole.
    if (max !== undefined && max >= 0 && parts.length > max + 1) parts = [...parts.slice(0, max), parts.slice(max).join(delimiter)];
  }
  if (trim) parts = parts.map((p) => p.trim());
  return dropEmpty ? parts.filter((p) => p !== '') : parts;
}

function join(i: Inputs): string {
  const items = pick(i, 'items', 'array');
  const list = items === undefined || items === null ? [] : Array.isArray(items) ? items : [items];
  const rawDelimiter = pick(i, 'delimiter', 'separator');
  const delimiter = decodeEscapes(rawDelimiter === undefined ? ',' : text(rawDelimiter));
  return list.map(textOrEmpty).join(delimiter);
}

/** `mode`: `first`/`once`/`1`, `all`/`*`/`global` (default), or a count. */
function replace(i: Inputs): string {
  const source = textOrEmpty(pick(i, 'text', 'value'));
  const pattern = pick(i, 'pattern', 'search');
  if (pattern === undefined || pattern === null || text(pattern) === '') return source;
  const needle = text(pattern);
  const replacement = textOrEmpty(pick(i, 'replacement', 'replace'));
  const mode = i.mode === undefined || i.mode === null ? 'all' : text(i.mode).trim().toLowerCase();
  const count = ['first', 'once', '1'].includes(mode) ? 1 : ['all', '*', 'global'].includes(mode) ? -1 : toInt(i.mode) ?? -1;
  const parts = source.split(needle);
  if (count < 0 || count >= parts.length - 1) return parts.join(replacement);
  return parts.slice(0, count + 1).join(replacement) + needle + parts.slice(count + 1).join(needle);
}

/** Python slicing `text[start:end]` (negative positions count from the end), in characters. */
function substring(i: Inputs): string {
  const chars = Array.from(text(i.text));
  const at = (n: number) => (n < 0 ? Math.max(0, chars.length + n) : Math.min(n, chars.length));
  const start = at(toInt(i.start ?? 0) ?? 0);
  const end = i.end === undefined || i.end === null ? chars.length : at(toInt(i.end) ?? chars.length);
  return chars.slice(start, Math.max(start, end)).join('');
}

export const textHelpers: Helpers = {
  // Pins with no value at all (not wired, no default) are left out; null is an empty part; the rest as Python str().
  concat: (i, node) => declaredInputs(node, i).filter((v) => v !== undefined).map(textOrEmpty).join(decodeEscapes(typeof node.data.concatConfig?.separator === 'string' ? node.data.concatConfig.separator : ' ')),
  trim: (i) => text(pick(i, 'text', 'value', 'input')).trim(),
  lowercase: (i) => text(pick(i, 'text', 'value', 'input')).toLowerCase(),
  uppercase: (i) => text(pick(i, 'text', 'value', 'input')).toUpperCase(),
  /** Characters of the text (Python `len(str(text))`); Keel's older `array`/`items` pins count items. */
  length: (i) => {
    const list = pick(i, 'array', 'items');
    if (i.text === undefined && i.value === undefined && i.input === undefined && list !== undefined) return Array.isArray(list) ? list.length : isRecord(list) ? Object.keys(list).length : Array.from(text(list)).length;
    return Array.from(text(pick(i, 'text', 'value', 'input'))).length;
  },
  split: (i) => split(i),
  join: (i) => join(i),
  /** false for a missing or empty pattern (it would be "in" every text). */
  contains: (i) => {
    const pattern = pick(i, 'pattern', 'substring', 'search');
    if (pattern === undefined || pattern === null || text(pattern) === '') return false;
    return textOrEmpty(pick(i, 'text', 'value')).includes(text(pattern));
  },
  replace: (i) => replace(i),
  substring: (i) => substring(i),
  is_empty_string: (i) => textOrEmpty(pick(i, 'text', 'value')).trim() === '',
};
