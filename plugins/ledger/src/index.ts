/**
 * `@keel/plugin-ledger`: the durable ledger of every run (append-only step records in LMDB), read
 * by pages, in batches and live over SSE with token deltas (seed 000 §2.3, §4.3, §6).
 */
import { core, definePlugin, token } from '@keel/plugin-sdk';
import type { ReadResult, ReadTask } from './ledger-read-worker.js';
import { LedgerStore } from './ledger-store.js';
import { ledgerRoutes } from './ledger-routes.js';
import { LiveHub } from './live-hub.js';
import { TailRegistry } from './tail-registry.js';

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
  deps: { storage: core.storage, workers: core.workers },
  provides: ledgerToken,
  setup({ deps }) {
    const hub = new LiveHub();
    const store = new LedgerStore(deps.storage, hub);
    // Stream reads and their JSON work run in a worker thread that opens the same LMDB environment.
    const pool = deps.workers.create('ledger-read', { filename: new URL('./ledger-read-worker.js', import.meta.url), maxThreads: 1, minThreads: 1, workerData: deps.storage.locate('records') });
    const reader = { read: (task: ReadTask) => pool.run(task) as Promise<ReadResult> };
    return { exports: { store, hub }, routes: ledgerRoutes(store, hub, new TailRegistry(store, hub, reader)) };
  },
});

export default ledgerPlugin;
