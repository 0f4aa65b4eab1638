// @keel/hub-client: framework-independent transport to the collaboration hub (browser and Node 20).
// Every module is a plain ES module with relative `.js` imports only, so `dist/` can be served to a
// browser as-is.

export { canonicalText, pythonFloat, canonicalNumber, quote, compareCodePoints, DEFAULT_FLOAT_KEYS, type CanonicalOptions } from './canonical.js';
export { chainPayload, chainHash, turnHash, verifyLedger, sha256Hex, CHAIN_FIELDS } from './chain.js';
export type * from './types.js';
