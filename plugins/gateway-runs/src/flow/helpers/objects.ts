/** Object helpers (reference formats §2.6, runtime-nodes §3.1): read, build, merge, break and set. */
import { getPath } from '../paths.js';
import { PythonError, pythonStr } from '../python-text.js';
import { defineKey } from '../paths.js';
import { parseJsonText } from './parse-json.js';
import { pythonTypeName } from './python-format.js';
import { isRecord, str, type Helpers } from './helper.js';
import { declaredInputs } from './text.js';

/** Python `dict(value)`: a copy of a dict, or a dict from a list of pairs; else Python's error. */
function pythonDict(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return { ...value };
  const pairs = typeof value === 'string' ? Array.from(value) : Array.isArray(value) ? value : null;
  if (!pairs) throw new PythonError('TypeError', `'${pythonTypeName(value)}' object is not iterable`);
  const out: Record<string, unknown> = {};
  pairs.forEach((pair, index) => {
    const items = typeof pair === 'string' ? Array.from(pair) : Array.isArray(pair) ? pair : null;
    if (!items) throw new PythonError('TypeError', `cannot convert dictionary update sequence element #${index} to a sequence`);
    if (items.length !== 2) throw new PythonError('ValueError', `dictionary update sequence element #${index} has length ${items.length}; 2 is required`);
    defineKey(out, pythonStr(items[0]), items[1]);
  });
  return out;
}

/**
 * `set`: a new object, `object` with `key` (split on `.`) set to `value`. Intermediate objects are
 * copied (the input is never changed), a missing or non-object step becomes `{}`.
 */
function setProperty(inputs: Record<string, unknown>): Record<string, unknown> {
  const root = pythonDict(inputs.object === undefined ? {} : inputs.object);
  const parts = (inputs.key === undefined ? '' : pythonStr(inputs.key)).split('.');
  let current = root;
  for (const part of parts.slice(0, -1)) {
    const next = Object.hasOwn(current, part) ? current[part] : undefined;
    const copy = isRecord(next) ? { ...next } : {};
    defineKey(current, part, copy);
    current = copy;
  }
  defineKey(current, parts.at(-1)!, inputs.value === undefined ? null : inputs.value);
  return root;
}

export const objectHelpers: Helpers = {
  /** The value at a dotted/bracket path; missing or null gives `default` (as the origin). */
  get: (i) => {
    const v = getPath(i.object ?? i.value ?? i.data, str(i.key ?? i.path));
    return { value: v === undefined || v === null ? i.default ?? null : v };
  },
  set: (i) => setProperty(i),
  make_object: (i, node) => Object.fromEntries((node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => [p.id, i[p.id] ?? null])),
  // Spread, not Object.assign: an own `__proto__` key (from parse_json) stays a key.
  merge: (i, node) => declaredInputs(node, i).filter((v) => typeof v === 'object' && v !== null).reduce<Record<string, unknown>>((out, v) => ({ ...out, ...(v as Record<string, unknown>) }), {}),
  break_object: (i, node) => {
    let source = i.object ?? i.value ?? i.input;
    if (typeof source === 'string') {
      try {
        source = parseJsonText(source);
      } catch {
        /* left as a string: every path reads null */
      }
    }
    return Object.fromEntries((node.data.breakConfig?.selectedPaths ?? []).map((p) => [p, getPath(source, p) ?? null]));
  },
};
