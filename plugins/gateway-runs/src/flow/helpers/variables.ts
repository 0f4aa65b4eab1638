/**
 * `bool_var` and `var_decl` (reference runtime-nodes §3.6): read a run variable (dotted path)
 * declared in the node's `literalValue`, falling back to its default when the value has the wrong
 * type. They only read: the default is never written back.
 */
import { isRecord, type Helpers } from './helper.js';

type VarType = 'boolean' | 'number' | 'string' | 'object' | 'array' | 'any';
const ZERO: Record<VarType, unknown> = { boolean: false, number: 0, string: '', object: {}, array: [], any: null };

function matches(value: unknown, type: VarType): boolean {
  switch (type) {
    case 'boolean': return typeof value === 'boolean';
    case 'number': return typeof value === 'number';
    case 'string': return typeof value === 'string';
    case 'object': return isRecord(value);
    case 'array': return Array.isArray(value);
    default: return true;
  }
}

/** The variable at a dotted path (`a.b`, `a[0]`), own keys only; undefined when any step is missing. */
function readVar(vars: Readonly<Record<string, unknown>>, name: string): unknown {
  if (!name) return undefined;
  let current: unknown = vars;
  for (const part of name.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean)) {
    if (isRecord(current) && Object.hasOwn(current, part)) current = current[part];
    else if (Array.isArray(current) && /^\d+$/.test(part) && Number(part) < current.length) current = current[Number(part)];
    else return undefined;
  }
  return current;
}

export const variableHelpers: Helpers = {
  bool_var: (_i, node, scope) => {
    const config = node.data.literalValue;
    const name = typeof config === 'string' ? config : isRecord(config) && typeof config.name === 'string' ? config.name : '';
    const fallback = isRecord(config) && typeof config.default === 'boolean' ? config.default : false;
    const value = readVar(scope.vars, name.trim());
    return { name: name.trim(), value: typeof value === 'boolean' ? value : fallback };
  },
  var_decl: (_i, node, scope) => {
    const config = isRecord(node.data.literalValue) ? node.data.literalValue : {};
    const name = typeof config.name === 'string' ? config.name.trim() : '';
    // The type as written (`Boolean` is not a type the origin knows: it reads as `any`).
    const declared = typeof config.type === 'string' ? config.type.trim() : 'any';
    const type: VarType = declared in ZERO ? (declared as VarType) : 'any';
    // `any` matches whatever is there, a missing variable too (null), as in the origin.
    const value = name ? readVar(scope.vars, name) ?? null : undefined;
    if (value !== undefined && matches(value, type)) return { name, value };
    const fallback = config.default === undefined ? null : config.default;
    return { name, value: matches(fallback, type) ? fallback : structuredClone(ZERO[type]) };
  },
};
