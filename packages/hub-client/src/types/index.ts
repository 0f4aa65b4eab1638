// Shapes the hub serves and accepts (seed §2, hub-protocol reference §6). The hub is the authority:
// a field it always serves is required here, and the hub plugin (`@keel/plugin-hub`) builds its
// answers from these very types, so TypeScript checks that it serves what the client expects.
// Open vocabularies stay open (`'open' | ... | string`); the client renders what is served and never
// converts dialects (the legacy leaderboard dialect is the one older shape still described).
//
// One file per area; `import type { X } from '@keel/hub-client'` reaches them all through this index.

export type * from './json.js';
export type * from './identity.js';
export type * from './channels.js';
export type * from './store.js';
export type * from './messages.js';
export type * from './envelopes.js';
export type * from './files.js';
export type * from './attention.js';
export type * from './reputation.js';
export type * from './search.js';
export type * from './governance.js';
export type * from './ledger.js';
