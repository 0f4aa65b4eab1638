/**
 * The durable ledger: step records per run in LMDB, keyed `[run_id, seq]` with seq dense from 1.
 * An append resolves only once its commit is synced (the kernel opens LMDB with synced commits),
 * then wakes live subscribers. The cursor of a record is its seq: the count of records consumed.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import type { LiveHub } from './live-hub.js';
import type { LedgerPage, RunMeta, StepRecord } from './records.js';

const MAX_PAGE = 2000;

export class LedgerStore {
  private readonly records: Database<StepRecord, [string, number]>;
  private readonly meta: Database<RunMeta, string>;
  /** `[run_id, idempotency_key]` → seq of the completed record: what lets a replay reuse a finished effect. */
  private readonly completedKeys: Database<number, [string, string]>;
  /** Next seq per run, for the process that writes (seeded from storage on first use). */
  private readonly nextSeq = new Map<string, number>();

  constructor(storage: PluginStorage, private readonly hub: LiveHub) {
    this.records = storage.openDB<StepRecord, [string, number]>('records');
    this.meta = storage.openDB<RunMeta, string>('runs');
    this.completedKeys = storage.openDB<number, [string, string]>('completed-keys');
  }

  async registerRun(meta: RunMeta): Promise<void> {
    await this.meta.put(meta.run_id, meta);
  }

  runMeta(runId: string): RunMeta | undefined {
    return this.meta.get(runId);
  }

  /** Marks a run finished; subscribers get `done` once they have every record. */
  async markTerminal(runId: string, status: string): Promise<void> {
    const meta = this.meta.get(runId);
    if (!meta) return;
    await this.meta.put(runId, { ...meta, terminal: true, status });
    this.hub.publishTerminal(meta.root_run_id, runId);
  }

  /** Appends a record durably; resolves with its cursor. */
  async append(record: StepRecord): Promise<number> {
    const seq = this.allocate(record.run_id);
    const writes = [this.records.put([record.run_id, seq], record)];
    if (record.status === 'completed' && record.idempotency_key) writes.push(this.completedKeys.put([record.run_id, record.idempotency_key], seq));
    await Promise.all(writes);
    const meta = this.meta.get(record.run_id);
    if (meta) this.hub.publishAppend(meta.root_run_id, record.run_id, seq);
    return seq;
  }

  /** Records after `after` (a count of records already consumed), at most `limit`. */
  page(runId: string, after: number, limit = 200): LedgerPage {
    const take = Math.max(1, Math.min(limit, MAX_PAGE));
    const items: LedgerPage['items'] = [];
    for (const { key, value } of this.records.getRange({ start: [runId, after + 1], end: [runId, Number.MAX_SAFE_INTEGER], limit: take })) {
      items.push({ ...value, cursor: key[1] });
    }
    return { items, next_after: after + items.length };
  }

  /** How many records the run has (read from storage, so another process's appends count). */
  count(runId: string): number {
    for (const key of this.records.getKeys({ start: [runId, Number.MAX_SAFE_INTEGER], end: [runId, 0], reverse: true, limit: 1 })) return key[1];
    return 0;
  }

  /** The completed record of an effect with this idempotency key, if the run already has one. */
  completedByKey(runId: string, key: string): StepRecord | undefined {
    const seq = this.completedKeys.get([runId, key]);
    return seq === undefined ? undefined : this.records.get([runId, seq]);
  }

  /**
   * The records of one effect at the end of the run's ledger, oldest first: its attempts so far
   * (`started`/`failed` pairs), which a replay after a crash continues from. The walk goes back
   * from the last record and stops at the first record of another effect (system records, whose
   * key starts with `system:`, are stepped over), so a fresh effect costs one read.
   */
  tailByKey(runId: string, key: string, limit = 64): StepRecord[] {
    const out: StepRecord[] = [];
    for (const { value } of this.records.getRange({ start: [runId, Number.MAX_SAFE_INTEGER], end: [runId, 0], reverse: true, limit })) {
      if (value.idempotency_key === key) out.push(value);
      else if (!value.idempotency_key?.startsWith('system:')) break;
    }
    return out.reverse();
  }

  /** True when `runId` is `ancestorId` or one of its descendants. */
  inSubtree(runId: string, ancestorId: string): boolean {
    for (let current: string | null = runId, hops = 0; current && hops < 1000; hops++) {
      if (current === ancestorId) return true;
      current = this.meta.get(current)?.parent_run_id ?? null;
    }
    return false;
  }

  private allocate(runId: string): number {
    const next = this.nextSeq.get(runId) ?? this.count(runId) + 1;
    this.nextSeq.set(runId, next + 1);
    return next;
  }
}
