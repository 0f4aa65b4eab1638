/**
 * Schema-first declarations: a JSON schema (validated by ajv in the kernel, published in OpenAPI)
 * that also carries the TypeScript type of the value it accepts. `defineSchema` derives that type
 * from the schema itself (json-schema-to-ts, types only), so the two cannot drift apart.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

export type JsonSchema = Record<string, unknown>;

export interface Schema<T> {
  readonly json: JsonSchema;
  /** Phantom field carrying the static type; never set at run time. */
  readonly __type?: T;
}

/**
 * The value a schema accepts after validation: the kernel fills in `default`s, so a property with a
 * default is present. An object without `additionalProperties: false` keeps an index signature.
 */
export type FromJsonSchema<S> = S extends JSONSchema ? FromSchema<S> : never;

/** The value a client may send: like {@link FromJsonSchema}, but properties with a default may be left out. */
export type JsonSchemaInput<S> = S extends JSONSchema ? FromSchema<S, { keepDefaultedPropertiesOptional: true }> : never;

/**
 * Declares a JSON schema; the handler's type is derived from it. Write the schema inline, or as a
 * constant `as const` (a wire schema shared with a client package):
 *
 *     const body = defineSchema({ type: 'object', required: ['text'], properties: { text: { type: 'string' } } });
 *     // Infer<typeof body> is { [x: string]: unknown; text: string }
 */
export function defineSchema<const S extends JSONSchema>(json: S): Schema<FromJsonSchema<S>> {
  return Object.freeze({ json: json as JsonSchema });
}

/** True when A and B are the same type (each assignable to the other). */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** What {@link defineSchemaFor} returns when the schema and the interface disagree: a compile error naming both. */
export interface SchemaTypeMismatch<Derived, Declared> {
  readonly error: 'the schema accepts another type than the interface it is declared for';
  readonly derived: Derived;
  readonly declared: Declared;
}

/**
 * Declares a JSON schema for a documented interface `T` (a plugin's config, whose fields carry their
 * documentation): the type derived from the schema must be `T` exactly, or the result is a
 * `SchemaTypeMismatch` that fails to compile where a `Schema<T>` is expected.
 *
 *     const configSchema = defineSchemaFor<LedgerConfig>()({ type: 'object', ... });
 */
export function defineSchemaFor<T>() {
  return <const S extends JSONSchema>(json: S): SameType<FromJsonSchema<S>, T> extends true ? Schema<T> : SchemaTypeMismatch<FromJsonSchema<S>, T> =>
    Object.freeze({ json: json as JsonSchema }) as never;
}

/**
 * Declares a JSON schema together with a type asserted by hand.
 * @deprecated The type can drift from the schema; use {@link defineSchema}, which derives it.
 */
export function schema<T>(json: JsonSchema): Schema<T> {
  return Object.freeze({ json });
}

/** The static type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : undefined;
