/**
 * Pure helper nodes (reference §2.6 "Pure helpers"): each maps resolved inputs to an output.
 * A scalar result is read through the pins `result` / `output`; an object exposes its keys.
 */
import { pureNode, type PureNodeType } from './node-types.js';
import { getPath } from './paths.js';
import type { FlowNode } from './visualflow.js';

type Inputs = Record<string, unknown>;
type Builtin = (inputs: Inputs, node: FlowNode) => unknown;

const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const truthy = (v: unknown): boolean => Boolean(v) && !(Array.isArray(v) && v.length === 0);

function declaredInputs(node: FlowNode, inputs: Inputs): unknown[] {
  return (node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => inputs[p.id]);
}

function decodeEscapes(s: string): string {
  return s.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
}

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

function parseJsonish(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const text = v.trim().replace(/^```(?:json)?\s*/i, '').replace(/```$/, '');
  return JSON.parse(text);
}

const BUILTINS: Record<string, Builtin> = {
  concat: (i, node) => declaredInputs(node, i).map(str).join(decodeEscapes(node.data.concatConfig?.separator ?? ' ')),
  trim: (i) => str(i.text ?? i.value ?? i.input).trim(),
  lowercase: (i) => str(i.text ?? i.value ?? i.input).toLowerCase(),
  uppercase: (i) => str(i.text ?? i.value ?? i.input).toUpperCase(),
  length: (i) => {
    const v = i.value ?? i.text ?? i.input ?? i.array ?? i.items;
    return Array.isArray(v) ? v.length : typeof v === 'object' && v !== null ? Object.keys(v).length : str(v).length;
  },
  split: (i) => str(i.text ?? i.value).split(decodeEscapes(str(i.delimiter ?? i.separator ?? ','))).map((s) => s.trim()).filter(Boolean),
  join: (i) => (Array.isArray(i.items ?? i.array) ? ((i.items ?? i.array) as unknown[]).map(str).join(decodeEscapes(str(i.delimiter ?? i.separator ?? ''))) : str(i.items ?? i.array)),
  contains: (i) => str(i.text ?? i.value).includes(str(i.substring ?? i.search ?? i.pattern)),
  replace: (i) => str(i.text ?? i.value).split(str(i.search ?? i.pattern)).join(str(i.replacement ?? i.replace)),
  is_empty_string: (i) => str(i.text ?? i.value).trim() === '',
  get_element: (i) => {
    const arr = (i.array ?? i.items) as unknown[];
    const index = num(i.index);
    const found = Array.isArray(arr) && index >= -arr.length && index < arr.length;
    return { result: found ? arr.at(index) : null, found };
  },
  compare: (i) => compare(i.a, i.b, str(i.op || '==')),
  not: (i) => !truthy(i.value ?? i.a),
  and: (i, node) => declaredInputs(node, i).every(truthy),
  or: (i, node) => declaredInputs(node, i).some(truthy),
  coalesce: (i, node) => declaredInputs(node, i).find((v) => v !== null && v !== undefined) ?? null,
  get: (i) => {
    const v = getPath(i.object ?? i.value ?? i.data, str(i.key ?? i.path));
    return { value: v === undefined ? i.default ?? null : v };
  },
  parse_json: (i) => parseJsonish(i.text ?? i.value ?? i.json),
  stringify_json: (i) => JSON.stringify(i.value ?? i.data ?? null),
  make_array: (i, node) => declaredInputs(node, i).filter((v) => v !== null && v !== undefined),
  array_length: (i) => (Array.isArray(i.array) ? i.array.length : 0),
  array_append: (i) => [...(Array.isArray(i.array) ? i.array : []), i.item ?? i.value],
  array_concat: (i, node) => declaredInputs(node, i).flatMap((v) => (Array.isArray(v) ? v : [])),
  make_object: (i, node) => Object.fromEntries((node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => [p.id, i[p.id] ?? null])),
  merge: (i, node) => Object.assign({}, ...declaredInputs(node, i).filter((v) => typeof v === 'object' && v !== null)),
  add: (i) => num(i.a) + num(i.b),
  subtract: (i) => num(i.a) - num(i.b),
  multiply: (i) => num(i.a) * num(i.b),
  divide: (i) => num(i.a) / num(i.b),
  modulo: (i) => num(i.a) % num(i.b),
  abs: (i) => Math.abs(num(i.value ?? i.a)),
  round: (i) => Math.round(num(i.value ?? i.a)),
  system_datetime: () => {
    const now = new Date();
    return { iso: now.toISOString(), timezone: 'UTC', utc_offset_minutes: 0, locale: 'en-US' };
  },
  break_object: (i, node) => {
    let source = i.object ?? i.value ?? i.input;
    if (typeof source === 'string') {
      try {
        source = parseJsonish(source);
      } catch {
        /* left as a string: every path reads null */
      }
    }
    return Object.fromEntries((node.data.breakConfig?.selectedPaths ?? []).map((p) => [p, getPath(source, p) ?? null]));
  },
};

/** The pure helpers as node types, registered by gateway-runs like any plugin's. */
export function builtinNodeTypes(): Record<string, PureNodeType> {
  return Object.fromEntries(Object.entries(BUILTINS).map(([type, evaluate]) => [type, pureNode(evaluate)]));
}

/** Literal nodes: output pin `value` is the authored value. */
export function isLiteral(type: string): boolean {
  return type.startsWith('literal_') || type === 'json_schema' || type === 'tools_allowlist';
}
