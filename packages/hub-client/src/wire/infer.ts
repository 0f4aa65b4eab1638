// The types a wire schema describes, derived from the schema itself (json-schema-to-ts, a type-only
// import: nothing of it is loaded at run time, in a browser or anywhere).

import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** What a client may send: properties with a `default` may be left out (the hub fills them in). */
export type WireInput<S> = S extends JSONSchema ? FromSchema<S, { keepDefaultedPropertiesOptional: true }> : never;

/** What the hub's handler receives after validation: every defaulted property is present. */
export type WireValue<S> = S extends JSONSchema ? FromSchema<S> : never;
