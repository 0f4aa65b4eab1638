// @keel/hub-client/wire: the JSON schemas of the hub's requests (path parameters, queries, bodies) and
// of some of its answers, shared by the hub, which validates with them, and this client, whose request
// types are derived from them. Plain constants: no imports at run time, so a page may load this
// module unbundled.

export * from './params.js';
export * from './messages.js';
export * from './channels.js';
export * from './identity.js';
export * from './governance.js';
export * from './reputation.js';
export * from './content.js';
export * from './attention.js';
export * from './search.js';
export * from './admin.js';
export * from './responses.js';
export * from './erasure.js';
export type { WireInput, WireValue } from './infer.js';
export * from './channel-extras.js';
export * from './seat-reads.js';
