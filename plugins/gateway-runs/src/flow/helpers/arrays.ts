/** Array helpers (reference formats §2.6, runtime-nodes §3.7). */
import { PythonError, pythonStr } from '../python-text.js';
import { pythonTypeName } from './python-format.js';
import { isRecord, num, type Helpers } from './helper.js';
import { declaredInputs } from './text.js';

/** What Python's `for item in value` walks: a list, a string's characters, a dict's keys; else `TypeError`. */
function pythonIterate(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') return Array.from(value);
  if (isRecord(value)) return Object.keys(value);
  throw new PythonError('TypeError', `'${pythonTypeName(value)}' object is not iterable`);
}

export const arrayHelpers: Helpers = {
  get_element: (i) => {
    const arr = (i.array ?? i.items) as unknown[];
    const index = num(i.index);
    const found = Array.isArray(arr) && index >= -arr.length && index < arr.length;
    return { result: found ? arr.at(index) : null, found };
  },
  make_array: (i, node) => declaredInputs(node, i).filter((v) => v !== null && v !== undefined),
  array_length: (i) => (Array.isArray(i.array) ? i.array.length : 0),
  array_append: (i) => [...(Array.isArray(i.array) ? i.array : []), i.item ?? i.value],
  array_concat: (i, node) => declaredInputs(node, i).flatMap((v) => (Array.isArray(v) ? v : [])),
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
