/** Comparison and boolean helpers (reference formats §2.6) with Python's `==`, `<` and truthiness. */
import { pythonTruthy } from '../coerce.js';
import { PythonError, pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';
import { declaredInputs } from './text.js';

const numeric = (v: unknown): v is number | boolean => typeof v === 'number' || typeof v === 'boolean';

/** Python `a == b` of JSON values (`True == 1`, lists and dicts compared by content). */
export function pythonEquals(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  if (numeric(a) && numeric(b)) return Number(a) === Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, k) => pythonEquals(x, b[k]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && pythonEquals(a[k], b[k]));
  }
  return false;
}

/** Python ordering: -1/0/1, or null when Python raises TypeError (the origin then answers false). */
function pythonOrder(a: unknown, b: unknown): number | null {
  if (numeric(a) && numeric(b)) return Math.sign(Number(a) - Number(b));
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [Array.from(a), Array.from(b)];
    for (let k = 0; k < Math.min(x.length, y.length); k += 1) if (x[k] !== y[k]) return x[k]!.codePointAt(0)! < y[k]!.codePointAt(0)! ? -1 : 1;
    return Math.sign(x.length - y.length);
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let k = 0; k < Math.min(a.length, b.length); k += 1) {
      if (pythonEquals(a[k], b[k])) continue;
      return pythonOrder(a[k], b[k]);
    }
    return Math.sign(a.length - b.length);
  }
  return null;
}

function compare(a: unknown, b: unknown, op: string): boolean {
  if (op === '==') return pythonEquals(a, b);
  if (op === '!=') return !pythonEquals(a, b);
  if (!['<', '<=', '>', '>='].includes(op)) throw new PythonError('ValueError', `Unknown comparison operator: ${op}`);
  const order = pythonOrder(a, b);
  if (order === null || Number.isNaN(order)) return false;
  return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
}

export const logicHelpers: Helpers = {
  compare: (i) => compare(i.a, i.b, i.op === undefined ? '==' : pythonStr(i.op)),
  not: (i) => !pythonTruthy(i.value ?? i.a ?? false),
  and: (i, node) => declaredInputs(node, i).every((v) => pythonTruthy(v ?? false)),
  or: (i, node) => declaredInputs(node, i).some((v) => pythonTruthy(v ?? false)),
  coalesce: (i, node) => declaredInputs(node, i).find((v) => v !== null && v !== undefined) ?? null,
};
