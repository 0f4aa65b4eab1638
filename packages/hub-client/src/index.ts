// @keel/hub-client: framework-independent transport to the collaboration hub (browser and Node 20).
// Every module is a plain ES module with relative `.js` imports only and no Node built-ins, so
// `dist/` can be served to a browser as-is.

export { HubClient } from './hub-client.js';
export type { HubClientOptions } from './client-options.js';
export type { FetchLike } from './request.js';
export { HubError, isMissingFeature, hasStatus, errorDetail } from './errors.js';
export { PROTOCOL, check_protocol } from './protocol.js';
export { CLIENT_HEADER, CLIENT_ID, CLIENT_NAME, CLIENT_VERSION } from './version.js';
export { resolveBaseUrl, deriveWsUrl, pageOrigin } from './ws-url.js';
export { seg, vfsPath, query, type QueryValue } from './paths.js';
export { openHubSocket, type HubSocket, type SocketHandlers, type WebSocketLike, type WebSocketConstructor } from './socket.js';
export { canonicalText, pythonFloat, canonicalNumber, quote, compareCodePoints, DEFAULT_FLOAT_KEYS, type CanonicalOptions } from './canonical.js';
export { chainPayload, chainHash, turnHash, verifyLedger, sha256Hex, CHAIN_FIELDS } from './chain.js';
export { contentHash, contentText, keelHash, keelLinkText, verifyKeelLedger, CONTENT_FIELDS, KEEL_META_FIELDS } from './commitment.js';
export { headStatement, verifyHeadSignature, fromBase64Url, HEAD_STATEMENT_FORMAT } from './head-signature.js';
export type * from './types/index.js';
