/** Comparison and boolean helpers (reference formats §2.6). */
import { num, str, type Helpers } from './helper.js';
import { declaredInputs } from './text.js';

const truthy = (v: unknown): boolean => Boolean(v) && !(Array.isArray(v) && v.length === 0);

function compare(a: unknown, b: unknown, op: string): boolean {
  switch (op) {
    case '==': return a === b || (a !== null && b !== null && typeof a !== 'object' && String(a) === String(b));
    case '!=': return !compare(a, b, '==');
    case '<': case '<=': case '>': case '>=': {
      if (a === null || a === undefined || b === null || b === undefined) return false;
      const [x, y] = typeof a === 'number' || typeof b === 'number' ? [num(a), num(b)] : [String(a), String(b)];
      return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
    }
    default: return false;
  }
}

export const logicHelpers: Helpers = {
  compare: (i) => compare(i.a, i.b, str(i.op || '==')),
  not: (i) => !truthy(i.value ?? i.a),
  and: (i, node) => declaredInputs(node, i).every(truthy),
  or: (i, node) => declaredInputs(node, i).some(truthy),
  coalesce: (i, node) => declaredInputs(node, i).find((v) => v !== null && v !== undefined) ?? null,
};
