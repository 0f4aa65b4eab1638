/**
 * The schema of a structured `llm_call` (reference runtime-nodes §5.1): what the node's
 * `resp_schema` / `response_schema` pin may hold, and the one form the call sends to the model.
 */
import { isRecord } from './effect-requests.js';

/** Keys that make an object a JSON Schema rather than a field map of sample values. */
const SCHEMA_KEYS = ['properties', '$schema', 'anyOf', 'oneOf', 'allOf', '$ref', 'items', 'enum'];
const JSON_TYPES = new Set(['object', 'string', 'integer', 'number', 'boolean', 'array', 'null']);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The schema a node's pin asks for, as the node puts it in the payload: a JSON Schema object, or
 * the wrapper `{type: "json_schema", json_schema: {schema}}` unwrapped; empty or not an object → none.
 * A `{"$ref": "abstractsemantics:<name>"}` names a schema registry Keel does not have: refused.
 */
export function schemaFromPin(value: unknown): Record<string, unknown> | null {
  if (!isRecord(value) || Object.keys(value).length === 0) return null;
  if (value.type === 'json_schema' && isRecord(value.json_schema) && isRecord(value.json_schema.schema)) return schemaFromPin(value.json_schema.schema);
  if (typeof value.$ref === 'string' && value.$ref.startsWith('abstractsemantics:')) {
    throw new Error(`resp_schema refers to '${value.$ref}', a schema of the AbstractSemantics registry, which Keel does not have; put the JSON Schema itself on the pin.`);
  }
  return value;
}

/**
 * The schema the call sends (the handler's normalisation): also `{json_schema: {schema}}`,
 * `{schema: {...}}`, a `response_format` wrapper, a JSON string, or a field map
 * `{choice: "…", score: 0}` (an object schema, every key required, types from the samples).
 * Throws the origin's refusals: a root that is not an object with properties, a property name
 * that is not an identifier.
 */
export function normalizeResponseSchema(value: unknown): Record<string, unknown> {
  const schema = unwrap(value);
  if (!schema || (schema.type !== undefined && schema.type !== 'object') || !isRecord(schema.properties) || Object.keys(schema.properties).length === 0) {
    throw new Error('response_schema must define properties');
  }
  for (const name of Object.keys(schema.properties)) if (!IDENTIFIER.test(name)) throw new Error(`Invalid property name ${JSON.stringify(name)} in response_schema: names must be identifiers (letters, digits, _).`);
  return { ...schema, type: 'object' };
}

function unwrap(value: unknown): Record<string, unknown> | null {
  if (typeof value === 'string') {
    try {
      return unwrap(JSON.parse(value));
    } catch {
      return null;
    }
  }
  if (!isRecord(value)) return null;
  if (isRecord(value.response_format)) return unwrap(value.response_format);
  if (isRecord(value.json_schema)) return unwrap(isRecord(value.json_schema.schema) ? value.json_schema.schema : value.json_schema);
  if (isRecord(value.schema) && !isRecord(value.properties)) return unwrap(value.schema);
  if (isSchema(value)) return value;
  return fieldMap(value);
}

function isSchema(value: Record<string, unknown>): boolean {
  return SCHEMA_KEYS.some((k) => k in value) || (typeof value.type === 'string' && JSON_TYPES.has(value.type));
}

/** `{choice: "a", score: 0}` → an object schema of those keys, all required, typed by their samples. */
function fieldMap(sample: Record<string, unknown>): Record<string, unknown> {
  const properties = Object.fromEntries(Object.entries(sample).map(([k, v]) => [k, sampleSchema(v)]));
  return { type: 'object', properties, required: Object.keys(properties) };
}

function sampleSchema(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') return { type: 'string' };
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  if (Array.isArray(value)) return value.length ? { type: 'array', items: sampleSchema(value[0]) } : { type: 'array' };
  if (isRecord(value)) return fieldMap(value);
  return {};
}

/** An answer object as the origin's validated model gives it: properties the answer left out appear as `null`. */
export function withOptionalNulls(schema: Record<string, unknown>, data: Record<string, unknown>): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const out = { ...data };
  for (const key of Object.keys(properties)) if (!(key in out)) out[key] = null;
  return out;
}
