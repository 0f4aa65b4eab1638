/**
 * Schema-first declarations: a JSON schema (validated by ajv in the kernel, published in OpenAPI)
 * that also carries the TypeScript type of the value it accepts.
 */
export type JsonSchema = Record<string, unknown>;

export interface Schema<T> {
  readonly json: JsonSchema;
  /** Phantom field carrying the static type; never set at run time. */
  readonly __type?: T;
}

/** Declares a JSON schema together with the TypeScript type it describes. */
export function schema<T>(json: JsonSchema): Schema<T> {
  return Object.freeze({ json });
}

/** The static type a schema describes. */
export type Infer<S> = S extends Schema<infer T> ? T : undefined;
