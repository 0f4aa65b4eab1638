/** Text helpers (reference formats §2.6): concatenation, case, trimming, splitting, searching. */
import type { FlowNode } from '../visualflow.js';
import { str, type Helpers, type Inputs } from './helper.js';

/** The values of the node's declared data inputs, in pin order. */
export function declaredInputs(node: FlowNode, inputs: Inputs): unknown[] {
  return (node.data.inputs ?? []).filter((p) => p.type !== 'execution').map((p) => inputs[p.id]);
}

/** `\n` and `\t` typed into a separator field mean the characters. */
export function decodeEscapes(s: string): string {
  return s.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
}

export const textHelpers: Helpers = {
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
};
