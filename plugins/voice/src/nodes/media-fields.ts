/**
 * How the media nodes read their fields (reference runtime-nodes §10): each is taken from the pin
 * when it is present and neither null nor "", else from the node's `effectConfig` (the same key or
 * a listed alias), and typed as the origin types it (strings, floats, objects).
 */
import type { FlowNode, NodeInputs } from '@keel/plugin-gateway-runs';

const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/** The node's `effectConfig` (an object, or empty). */
export function effectConfigOf(node: FlowNode): Record<string, unknown> {
  const config = (node.data as { effectConfig?: unknown } | undefined)?.effectConfig;
  return config && typeof config === 'object' && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
}

/** The first present value among `keys`, pins first, then `effectConfig`. */
export function fieldOf(inputs: NodeInputs, config: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const source of [inputs, config]) {
    for (const key of keys) if (present(source[key])) return source[key];
  }
  return undefined;
}

/** A string field (numbers and booleans as text; objects are not strings and are left out). */
export function stringField(inputs: NodeInputs, config: Record<string, unknown>, keys: readonly string[]): string | undefined {
  const value = fieldOf(inputs, config, keys);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A float field; a value that is not a finite number is an error naming the field. */
export function floatField(node: string, inputs: NodeInputs, config: Record<string, unknown>, keys: readonly string[]): number | undefined {
  const value = fieldOf(inputs, config, keys);
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  if (!Number.isFinite(n)) throw new Error(`${node} field '${keys[0]}' must be a number; got ${JSON.stringify(value)}.`);
  return n;
}

/** An object field (`extra`). */
export function objectField(inputs: NodeInputs, config: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> | undefined {
  const value = fieldOf(inputs, config, keys);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The payload every media node lowers to (an `llm_call` payload with an `output` selector, §10). */
export interface MediaPayload extends Record<string, unknown> {
  prompt: string;
  system_prompt: '';
  tools: [];
  params: Record<string, never>;
  output: Record<string, unknown>;
  media?: Array<Record<string, unknown>>;
}

export function mediaPayload(prompt: string, output: Record<string, unknown>, media?: Array<Record<string, unknown>>): MediaPayload {
  return { prompt, system_prompt: '', tools: [], params: {}, output, ...(media ? { media } : {}) };
}

/** Leaves out the keys whose value is undefined (the ledger payload holds only what was given). */
export function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
