/**
 * `@keel/plugin-ledger`: the durable ledger of every run (append-only step records in LMDB), read
 * by pages, in batches and live over SSE with token deltas (seed 000 §2.3, §4.3, §6).
 */
import { core, definePlugin, token } from '@keel/plugin-sdk';
import { FrameCache } from './frame-cache.js';
import { LedgerStore } from './ledger-store.js';
import { ledgerRoutes } from './ledger-routes.js';
import { LiveHub } from './live-hub.js';

export { LedgerStore } from './ledger-store.js';
export { LiveHub } from './live-hub.js';
export type { TapMessage } from './live-hub.js';
export type { StepRecord, StepStatus, Effect, RunMeta, LedgerPage, DeltaEvent, DeltaEndEvent, LiveEvent } from './records.js';

export interface LedgerService {
  store: LedgerStore;
  hub: LiveHub;
}

export const ledgerToken = token<LedgerService>('ledger.service');

export const ledgerPlugin = definePlugin({
  id: 'ledger',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Durable run ledgers: pages, batches and live SSE streams with LLM deltas',
  defaultPrefix: '/api/gateway',
  deps: { storage: core.storage },
  provides: ledgerToken,
  setup({ deps }) {
    const hub = new LiveHub();
    const store = new LedgerStore(deps.storage, hub);
    return { exports: { store, hub }, routes: ledgerRoutes(store, hub, new FrameCache()) };
  },
});

export default ledgerPlugin;
