/**
 * The durable ledger: step records per run in LMDB, keyed `[run_id, seq]` with seq dense from 1.
 * An append resolves only once its commit is synced (the kernel opens LMDB with synced commits),
 * then wakes live subscribers. The cursor of a record is its seq: the count of records consumed.
 * Appends run in LMDB transactions that can carry the caller's own writes (the run state), so a
 * record and the state that follows from it are committed together; a run's ledger ends once.
 */
import type { Database } from 'lmdb';
import { prefixRange, jsonSizeWithin, type PluginStorage } from '@keel/plugin-sdk';
import { DEFAULT_LEDGER_LIMITS, recordTooLarge, runLedgerFull, type LedgerLimits } from './ledger-limits.js';
import type { LedgerLiveBus } from './live-bus.js';
import type { LedgerPage, RunMeta, StepRecord } from './records.js';

const MAX_PAGE = 2000;

/** The idempotency key of a run's terminal `abstract.status` record (reference §4). */
export const TERMINAL_STATUS_KEY = 'system:terminal_status:';

/** How a run's ledger ended (`endRun`). */
export interface RunEnd {
  /** The terminal status the ledger holds: on a replay, the one recorded first. */
  status: string;
  /** False when the ledger had already ended (a replay after a crash): nothing was appended. */
  appended: boolean;
  /** Cursors of the appended records. */
  cursors: number[];
}

export class LedgerStore {
  private readonly records: Database<StepRecord, [string, number]>;
  private readonly meta: Database<RunMeta, string>;
  /** `[run_id, idempotency_key]` → seq of the completed record: what lets a replay reuse a finished effect. */
  private readonly completedKeys: Database<number, [string, string]>;
  /** Record bytes (as JSON text) each run has written, for `maxRunBytes`. */
  private readonly runBytes: Database<number, string>;
  /** Next seq per run, for the process that writes (seeded from storage on first use). */
  private readonly nextSeq = new Map<string, number>();

  constructor(private readonly storage: PluginStorage, private readonly hub: LedgerLiveBus, private readonly limits: LedgerLimits = DEFAULT_LEDGER_LIMITS) {
    this.records = storage.openDB<StepRecord, [string, number]>('records');
    this.meta = storage.openDB<RunMeta, string>('runs');
    this.completedKeys = storage.openDB<number, [string, string]>('completed-keys');
    this.runBytes = storage.openDB<number, string>('run-bytes');
  }

  /** Registers a run's ledger; `alongside` (the caller's own writes, e.g. the run itself) is committed with it. */
  async registerRun(meta: RunMeta, alongside?: () => void): Promise<void> {
    await this.storage.transaction(() => {
      void this.meta.put(meta.run_id, meta);
      alongside?.();
    });
  }

  runMeta(runId: string): RunMeta | undefined {
    return this.meta.get(runId);
  }

  /** Marks a run finished without records of its own (a run's end normally goes through `endRun`). */
  async markTerminal(runId: string, status: string): Promise<void> {
    const meta = this.meta.get(runId);
    if (!meta) return;
    await this.meta.put(runId, { ...meta, terminal: true, status });
    this.hub.publishTerminal(meta.root_run_id, runId);
  }

  /** Appends a record durably; resolves with its cursor. Throws `LedgerLimitError` (nothing written) over a limit. */
  async append(record: StepRecord): Promise<number> {
    return (await this.appendAll(record.run_id, [record]))[0]!;
  }

  /**
   * Appends records of one run, in order, in one commit together with the caller's own writes:
   * `alongside` runs inside the same LMDB transaction (every plugin's sub-databases share the
   * environment), so a crash keeps the records and those writes, or neither. Resolves with the
   * records' cursors once durable. Over `maxRecordBytes` or `maxRunBytes` it throws
   * `LedgerLimitError` and writes nothing (`alongside` does not run).
   */
  async appendAll(runId: string, records: StepRecord[], alongside?: () => void): Promise<number[]> {
    const cursors = await this.transact(runId, () => {
      const seqs = this.write(runId, records, false);
      alongside?.();
      return seqs;
    });
    this.publish(runId, cursors, false);
    return cursors;
  }

  /**
   * Ends a run's ledger exactly once: its last records (the terminal `abstract.status` among
   * them), the terminal mark and the caller's writes in one commit. When the ledger already holds
   * a terminal status (a replay of a run whose end was committed), nothing is appended; either
   * way `alongside` runs in the transaction with the outcome. These records are exempt from
   * `maxRunBytes` (a run stopped by it must still end), not from `maxRecordBytes`.
   */
  async endRun(runId: string, records: StepRecord[], status: string, alongside?: (end: RunEnd) => void): Promise<RunEnd> {
    const end = await this.transact(runId, () => {
      const recorded = this.terminalStatusOf(runId);
      const outcome: RunEnd = recorded === null ? { status, appended: true, cursors: this.write(runId, records, true) } : { status: recorded, appended: false, cursors: [] };
      const meta = this.meta.get(runId);
      if (meta) void this.meta.put(runId, { ...meta, terminal: true, status: outcome.status });
      alongside?.(outcome);
      return outcome;
    });
    this.publish(runId, end.cursors, true);
    return end;
  }

  /** The status of the run's terminal `abstract.status` record, or null while it has none. */
  terminalStatusOf(runId: string): string | null {
    for (const key of this.completedKeys.getKeys({ ...prefixRange([runId, TERMINAL_STATUS_KEY], { partial: true }), limit: 1 })) return key[1].slice(TERMINAL_STATUS_KEY.length);
    return null;
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

  /** One LMDB write transaction for a run's appends; a failed one leaves the seq to be re-read from storage. */
  private async transact<T>(runId: string, fn: () => T): Promise<T> {
    try {
      return await this.storage.transaction(fn);
    } catch (err) {
      this.nextSeq.delete(runId);
      throw err;
    }
  }

  /**
   * The bytes `records` would add to the run's ledger, checked against the limits as an append would
   * check them (`alreadyHeld`: bytes the caller holds for this run and will append first). Throws
   * `LedgerLimitError` over a limit. Lets a caller that commits records later refuse them now.
   */
  measure(runId: string, records: StepRecord[], alreadyHeld = 0): number {
    let bytes = 0;
    for (const record of records) {
      const size = jsonSizeWithin(record, this.limits.maxRecordBytes);
      if (size > this.limits.maxRecordBytes) throw recordTooLarge(record.node_id, this.limits);
      bytes += size;
    }
    if ((this.runBytes.get(runId) ?? 0) + alreadyHeld + bytes > this.limits.maxRunBytes) throw runLedgerFull(runId, this.limits);
    return bytes;
  }

  /**
   * Inside a transaction: checks the limits first (a non-child transaction keeps what was written
   * before a throw), then writes the records and their keys; returns their seqs.
   */
  private write(runId: string, records: StepRecord[], ending: boolean): number[] {
    let bytes = 0;
    for (const record of records) {
      if (record.run_id !== runId) throw new Error(`a record of run ${record.run_id} cannot be appended to the ledger of run ${runId}`);
      const size = jsonSizeWithin(record, this.limits.maxRecordBytes);
      if (size > this.limits.maxRecordBytes) throw recordTooLarge(record.node_id, this.limits);
      bytes += size;
    }
    const total = (this.runBytes.get(runId) ?? 0) + bytes;
    if (!ending && total > this.limits.maxRunBytes) throw runLedgerFull(runId, this.limits);
    const seqs = records.map((record) => {
      const seq = this.allocate(runId);
      void this.records.put([runId, seq], record);
      if (record.status === 'completed' && record.idempotency_key) void this.completedKeys.put([runId, record.idempotency_key], seq);
      return seq;
    });
    void this.runBytes.put(runId, total);
    return seqs;
  }

  /** Wakes the run tree's subscribers once the commit is durable. */
  private publish(runId: string, cursors: number[], terminal: boolean): void {
    const meta = this.meta.get(runId);
    if (!meta) return;
    for (const cursor of cursors) this.hub.publishAppend(meta.root_run_id, runId, cursor);
    if (terminal) this.hub.publishTerminal(meta.root_run_id, runId);
  }

  private allocate(runId: string): number {
    const next = this.nextSeq.get(runId) ?? this.count(runId) + 1;
    this.nextSeq.set(runId, next + 1);
    return next;
  }
}
