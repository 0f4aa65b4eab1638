/**
 * `@keel/plugin-ledger`: the durable ledger of every run (append-only step records in LMDB), read
 * by pages, in batches and live over SSE with token deltas (seed 000 §2.3, §4.3, §6).
 */
import path from 'node:path';
import { core, definePlugin, defineSchemaFor, token } from '@keel/plugin-sdk';
import { FairReads } from './fair-reads.js';
import { InlineSmallReads } from './inline-reads.js';
import { DEFAULT_LEDGER_LIMITS, type LedgerLimits } from './ledger-limits.js';
import type { ReadResult, ReadTask } from './ledger-read-worker.js';
import { LedgerStore } from './ledger-store.js';
import { ledgerRoutes } from './ledger-routes.js';
import { LedgerLiveBus, type LiveBus } from './live-bus.js';
import { liveFilesTransport } from './live-files-transport.js';
import type { StepRecord } from './records.js';
import { SharedFrames } from './shared-frames.js';
import { TailRegistry } from './tail-registry.js';

export { LedgerStore, TERMINAL_STATUS_KEY } from './ledger-store.js';
export type { RunEnd } from './ledger-store.js';
export { LedgerLimitError, DEFAULT_LEDGER_LIMITS } from './ledger-limits.js';
export type { LedgerLimits } from './ledger-limits.js';
export type { LiveBus, LiveBusMessage, LiveListener, LiveMembership, LiveRole, OpenCall, TransportFactory } from './live-bus.js';
export type { Gate, LiveMessage, LiveNudge, LiveReceiver, LiveTransport } from './live-transport.js';
export type { StepRecord, StepStatus, Effect, RunMeta, LedgerPage, DeltaEvent, DeltaEndEvent, LiveEvent } from './records.js';

export interface LedgerService {
  store: LedgerStore;
}

export const ledgerToken = token<LedgerService>('ledger.service');

/**
 * The live bus: the one way live traffic (record wake-ups, token deltas, terminal marks) is
 * published and heard, in this process and, once joined, across processes on the data directory.
 */
export const liveBusToken = token<LiveBus>('ledger.live-bus');

export interface LedgerConfig extends LedgerLimits {
  /** Records per page a stream reads from the pool... */
  streamPageRecords: number;
  /** ...and bytes per page (a page holds at least one record, however large). */
  streamPageBytes: number;
  /** Bytes of step frames kept for every stream to share (least recently used first out). */
  streamCacheBytes: number;
  /** A run whose whole ledger is at most this many bytes (JSON text) is read for its streams on the main thread, not in the pool (0: always the pool). */
  streamInlineBytes: number;
}

const READ_THREADS = 1;

/** Stream paging and sharing, and per-run limits on what a run writes (`ledger-limits.ts`; sizes as JSON text). */
const configSchema = defineSchemaFor<LedgerConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    streamPageRecords: { type: 'integer', minimum: 1, maximum: 2000, default: 500 },
    streamPageBytes: { type: 'integer', minimum: 1024, default: 1024 * 1024 },
    streamCacheBytes: { type: 'integer', minimum: 0, default: 32 * 1024 * 1024 },
    streamInlineBytes: { type: 'integer', minimum: 0, maximum: 1024 * 1024, default: 32 * 1024 },
    maxRecordBytes: { type: 'integer', minimum: 65536, default: DEFAULT_LEDGER_LIMITS.maxRecordBytes },
    maxRunBytes: { type: 'integer', minimum: 65536, default: DEFAULT_LEDGER_LIMITS.maxRunBytes },
  },
});

export const ledgerPlugin = definePlugin({
  id: 'ledger',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Durable run ledgers: pages, batches and live SSE streams with LLM deltas',
  configSchema,
  defaultPrefix: '/api/gateway',
  guardUnmatched: true,
  deps: { storage: core.storage, workers: core.workers, paths: core.paths, log: core.logger },
  provides: { ledger: ledgerToken, live: liveBusToken },
  setup({ config, deps }) {
    // In-process until a runner's wiring joins the bus to the other processes on the data directory:
    // then the transport is files under `<data>/live/` (a database's notifications will be another choice here).
    const liveDir = path.join(deps.paths.dataDir, 'live');
    const bus = new LedgerLiveBus((role, receiver) => liveFilesTransport(liveDir, role, receiver, (file, err) => deps.log.warn('live file not written or followed', { file, error: (err as Error).message })));
    const store = new LedgerStore(deps.storage, bus, config);
    // Stream reads and their JSON work run in a worker thread that opens the same LMDB environment.
    const pool = deps.workers.create('ledger-read', { filename: new URL('./ledger-read-worker.js', import.meta.url), maxThreads: READ_THREADS, minThreads: READ_THREADS, workerData: deps.storage.workerHandle('records') });
    // Runs take turns at the pool, one page each, and subscribers share the pages read.
    const fair = new FairReads({ read: (task: ReadTask) => pool.run(task) as Promise<ReadResult> }, READ_THREADS);
    // A small ledger is read where it is asked for: the pool's hand-off costs more than such a read.
    const reads = new InlineSmallReads(fair, deps.storage.openDB<StepRecord, [string, number]>('records'), deps.storage.openDB<number, string>('run-bytes'), config.streamInlineBytes);
    const frames = new SharedFrames(reads, { records: config.streamPageRecords, bytes: config.streamPageBytes }, config.streamCacheBytes);
    return {
      exports: { ledger: { store }, live: bus as LiveBus },
      routes: ledgerRoutes(store, bus, new TailRegistry(store, bus, frames)),
      // After the plugins that publish (they stop first): what the transport still holds is written.
      stop: () => bus.close(),
    };
  },
});

export default ledgerPlugin;
