/**
 * A flow's input schema: the data output pins of its start node are the run's inputs
 * (reference flow-and-ledger-formats §2, `on_flow_start`), with their authored defaults.
 * Only `execution` matters to the runtime; the other pin types map to JSON-schema types where
 * one exists and are kept as `x-pin-type`.
 */
import type { CompiledFlow } from '../flow/compile-flow.js';

const JSON_TYPES: Record<string, string> = { string: 'string', number: 'number', integer: 'integer', boolean: 'boolean', object: 'object', array: 'array' };

export function flowInputSchema(flow: CompiledFlow): Record<string, unknown> {
  const start = flow.nodes.get(flow.entry);
  const properties: Record<string, Record<string, unknown>> = {};
  const defaults = (start?.data.pinDefaults ?? {}) as Record<string, unknown>;
  for (const pin of start?.data.outputs ?? []) {
    if (pin.type === 'execution' || pin.id.startsWith('_')) continue;
    const prop: Record<string, unknown> = { title: pin.label ?? pin.id, 'x-pin-type': pin.type ?? 'any' };
    const jsonType = pin.type ? JSON_TYPES[pin.type] : undefined;
    if (jsonType) prop.type = jsonType;
    const description = (pin as { description?: unknown }).description;
    if (typeof description === 'string') prop.description = description;
    if (pin.id in defaults) prop.default = defaults[pin.id];
    properties[pin.id] = prop;
  }
  return { type: 'object', properties, additionalProperties: true };
}
