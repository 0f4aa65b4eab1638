/** Array helpers (reference formats §2.6, runtime-nodes §3.7). */
import { PythonError, pythonStr } from '../python-text.js';
import { pythonTypeName } from './python-format.js';
import { isRecord, type Helpers } from './helper.js';
import { declaredInputs } from './text.js';

/** `int()` of an index pin as the origin reads it: numbers truncated, numeric text parsed, anything else 0. */
function readIndex(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && v.trim() && Number.isFinite(Number(v.trim()))) return Math.trunc(Number(v.trim()));
  return 0;
}

/** What Python's `for item in value` walks: a list, a string's characters, a dict's keys; else `TypeError`. */
function pythonIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return Array.from(value);
  if (isRecord(value)) return Object.keys(value);
  throw new PythonError('TypeError', `'${pythonTypeName(value)}' object is not iterable`);
}

export const arrayHelpers: Helpers = {
  /** Python indexing (negative from the end); an index that cannot be read is 0; a miss gives `default`. */
  get_element: (i) => {
    const raw = i.array ?? i.items;
    const items = Array.isArray(raw) ? raw : [];
    const index = readIndex(i.index);
    const at = index < 0 ? items.length + index : index;
    return at >= 0 && at < items.length ? { result: items[at], found: true } : { result: i.default ?? null, found: false };
  },
  make_array: (i, node) => declaredInputs(node, i).filter((v) => v !== null && v !== undefined),
  array_length: (i) => (Array.isArray(i.array) ? i.array.length : 0),
  // A value that is not a list becomes a one-item list first (null: empty), as the origin.
  array_append: (i) => [...(Array.isArray(i.array) ? i.array : i.array === null || i.array === undefined ? [] : [i.array]), i.item !== undefined ? i.item : i.value ?? null],
  // Lists are spread, other values appended, null and missing pins skipped (as the origin).
  array_concat: (i, node) => declaredInputs(node, i).flatMap((v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v])),
  /** A uniformly random element; anything but a list (a string too) counts as empty. */
  get_random_element: (i) => {
    const items = Array.isArray(i.array) ? i.array : [];
    if (items.length === 0) return { result: i.default ?? null, found: false };
    return { result: items[Math.floor(Math.random() * items.length)], found: true };
  },
  /** `item[key]` of each object item (flat key, null when missing); other items pass through. */
  array_map: (i) => {
    const key = i.key === undefined ? '' : pythonStr(i.key);
    const items = i.items === undefined ? [] : pythonIterate(i.items);
    return items.map((item) => (isRecord(item) ? (Object.hasOwn(item, key) ? item[key] : null) : item));
  },
  /** true iff a non-empty list (the `tool_calls` of an LLM answer, typically). */
  has_tools: (i) => Array.isArray(i.array) && i.array.length > 0,
};
