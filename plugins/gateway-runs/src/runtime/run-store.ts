/** Runs in LMDB, keyed by run id, with an index by account for listings. Every write is awaited (durable). */
import type { Database, Key } from 'lmdb';
import { prefixEnd, prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { RunState } from './run-state.js';

export class RunStore {
  private readonly runs: Database<RunState, string>;
  /** `[account, created_at, run_id]` → run id, for listings newest last. */
  private readonly byAccount: Database<string, [string, string, string]>;
  /** `[parent_run_id, run_id]` → true: a run tree walked without scanning every run. */
  private readonly byParent: Database<true, [string, string]>;
  /** `[account, session_id, created_at, run_id]` → run id, root runs only: a session's turns without scanning the account. */
  private readonly bySession: Database<string, [string, string, string, string]>;
  /**
   * `[account, run_id]` → true while the run is running or waiting: the active-run cap counts an
   * account's live runs at every start without reading (decoding the variables of) all its runs.
   */
  private readonly byActive: Database<true, [string, string]>;
  /**
   * `[account, session_id, created_at, run_id]` → run id, every run with a session (roots and
   * children; a subflow may put its child in another session than its root's): a listing of one
   * session, or of the archived or docs sessions, reads only their runs.
   */
  private readonly inSession: Database<string, [string, string, string, string]>;
  /**
   * `[account, created_at, run_id]` → the run's session id (null: none), root runs and automation
   * occurrences only (the runs a turn listing may show): a turn listing never reads child runs,
   * and skips archived and docs sessions' turns on the session id alone, without reading them.
   */
  private readonly turns: Database<string | null, [string, string, string]>;
  /** `[account, created_at, run_id]` → true, `POST /runs/schedule` roots only: the legacy automations an automation listing shows. */
  private readonly scheduleRoots: Database<true, [string, string, string]>;
  private readonly meta: Database<string, string>;

  constructor(storage: PluginStorage) {
    this.runs = storage.openDB<RunState, string>('runs');
    this.byAccount = storage.openDB<string, [string, string, string]>('runs-by-account');
    this.byParent = storage.openDB<true, [string, string]>('runs-by-parent');
    this.bySession = storage.openDB<string, [string, string, string, string]>('runs-by-session');
    this.byActive = storage.openDB<true, [string, string]>('runs-active');
    this.inSession = storage.openDB<string, [string, string, string, string]>('runs-in-session');
    this.turns = storage.openDB<string | null, [string, string, string]>('runs-turns-by-account');
    this.scheduleRoots = storage.openDB<true, [string, string, string]>('runs-schedule-roots');
    this.meta = storage.openDB<string, string>('runs-meta');
  }

  /** Builds the session index once for data made before it existed (called at start, before any run is made). */
  async migrate(): Promise<void> {
    if (this.meta.get('session-index') !== 'v1') {
      await this.meta.transaction(() => {
        for (const { value } of this.runs.getRange()) if (!value.parent_run_id && value.session_id) void this.bySession.put(sessionKey(value), value.run_id);
        void this.meta.put('session-index', 'v1');
      });
    }
    if (this.meta.get('active-index') !== 'v1') {
      await this.meta.transaction(() => {
        for (const { value } of this.runs.getRange()) this.noteActivity(value);
        void this.meta.put('active-index', 'v1');
      });
    }
    if (this.meta.get('schedule-index') !== 'v1') {
      await this.meta.transaction(() => {
        for (const { value } of this.runs.getRange()) this.noteScheduleRoot(value);
        void this.meta.put('schedule-index', 'v1');
      });
    }
    if (this.meta.get('listing-indexes') === 'v1') return;
    await this.meta.transaction(() => {
      for (const { value } of this.runs.getRange()) this.noteListing(value);
      void this.meta.put('listing-indexes', 'v1');
    });
  }

  /** Writes the listing indexes' entries of a run (idempotent puts; a run's account, session and creation time never change). */
  private noteListing(run: RunState): void {
    if (run.session_id) void this.inSession.put([run.account, run.session_id, run.created_at, run.run_id], run.run_id);
    if (!run.parent_run_id || run.role === 'occurrence') void this.turns.put([run.account, run.created_at, run.run_id], run.session_id ?? null);
    this.noteScheduleRoot(run);
  }

  private noteScheduleRoot(run: RunState): void {
    if (!run.parent_run_id && run.builtin === 'scheduler') void this.scheduleRoots.put([run.account, run.created_at, run.run_id], true);
  }

  /** The account's `POST /runs/schedule` roots, newest first, from their index alone. */
  *scheduleRootIdsNewestFirst(account: string): Generator<string> {
    for (const key of this.scheduleRoots.getKeys(prefixRange([account], { reverse: true }))) yield key[2];
  }

  /** Keeps the active index in step with a run being written (put and remove are idempotent, applied in write order). */
  private noteActivity(run: RunState): void {
    if (run.status === 'running' || run.status === 'waiting') void this.byActive.put([run.account, run.run_id], true);
    else void this.byActive.remove([run.account, run.run_id]);
  }

  /** The account's runs running or waiting (roots and children), from the active index: never a read of its other runs. */
  activeOf(account: string): RunState[] {
    const out: RunState[] = [];
    for (const key of this.byActive.getKeys(prefixRange([account]))) {
      const run = this.runs.get(key[1]);
      if (run && (run.status === 'running' || run.status === 'waiting')) out.push(run);
    }
    return out;
  }

  get(runId: string): RunState | undefined {
    return this.runs.get(runId);
  }

  /** Writes a new run and its index entries inside a transaction someone else commits (the ledger's, with its registration). */
  createInTransaction(run: RunState): void {
    void this.runs.put(run.run_id, run);
    void this.byAccount.put([run.account, run.created_at, run.run_id], run.run_id);
    if (run.parent_run_id) void this.byParent.put([run.parent_run_id, run.run_id], true);
    else if (run.session_id) void this.bySession.put(sessionKey(run), run.run_id);
    this.noteActivity(run);
    this.noteListing(run);
  }

  async save(run: RunState): Promise<void> {
    this.noteActivity(run);
    this.noteOccurrence(run);
    await this.runs.put(run.run_id, run);
  }

  /** A child an automation marks an occurrence after its creation becomes a turn (a no-op for every other run). */
  private noteOccurrence(run: RunState): void {
    if (run.parent_run_id && run.role === 'occurrence') void this.turns.put([run.account, run.created_at, run.run_id], run.session_id ?? null);
  }

  /**
   * Writes the run inside a transaction someone else commits (the ledger's, so the run's records
   * and its state are one commit). The value is encoded at once: later changes to `run` are not written.
   */
  writeInTransaction(run: RunState): void {
    void this.runs.put(run.run_id, run);
    this.noteActivity(run);
    this.noteOccurrence(run);
  }

  /** The `[created_at, run_id]` of every run of the account in the session (roots and children), from the index alone, newest first. */
  *idsInSessionNewestFirst(account: string, sessionId: string): Generator<[string, string]> {
    for (const key of this.inSession.getKeys(prefixRange([account, sessionId], { reverse: true }))) yield [key[2], key[3]];
  }

  /** The account's turn candidates (root runs and occurrences) newest first, from the index alone: `{run_id, session_id}`. */
  *turnIdsNewestFirst(account: string): Generator<{ run_id: string; session_id: string | null }> {
    for (const { key, value } of this.turns.getRange(prefixRange([account], { reverse: true }))) yield { run_id: key[2], session_id: value };
  }

  /** The account's run ids newest first, from the index alone. */
  *idsByAccountNewestFirst(account: string): Generator<string> {
    for (const { value } of this.byAccount.getRange(prefixRange([account], { reverse: true }))) yield value;
  }

  /** The ids of a run's children, from the parent index alone (in id order). */
  *childIds(runId: string): Generator<string> {
    for (const key of this.byParent.getKeys(prefixRange([runId]))) yield key[1];
  }

  listByAccount(account: string): RunState[] {
    const out: RunState[] = [];
    for (const { value } of this.byAccount.getRange(prefixRange([account]))) {
      const run = this.runs.get(value);
      if (run) out.push(run);
    }
    return out;
  }

  /** Every account that has runs, in key order: one index read per account, never a scan of its runs. */
  accounts(): string[] {
    const out: string[] = [];
    let start: Key | undefined;
    for (;;) {
      let next: [string, string, string] | undefined;
      for (const key of this.byAccount.getKeys({ ...(start ? { start } : {}), limit: 1 })) next = key;
      if (!next) return out;
      out.push(next[0]);
      start = prefixEnd([next[0]]);
    }
  }

  /** The root runs (turns) of one session of an account, oldest first. */
  rootsOfSession(account: string, sessionId: string): RunState[] {
    const out: RunState[] = [];
    for (const { value } of this.bySession.getRange(prefixRange([account, sessionId]))) {
      const run = this.runs.get(value);
      if (run) out.push(run);
    }
    return out;
  }

  /**
   * The same, newest first, read lazily: a caller that stops early (a history window that is full)
   * never reads the older runs.
   */
  *rootsOfSessionNewestFirst(account: string, sessionId: string): Generator<RunState> {
    for (const { value } of this.bySession.getRange(prefixRange([account, sessionId], { reverse: true }))) {
      const run = this.runs.get(value);
      if (run) yield run;
    }
  }

  /** The ids of the same runs, newest first, read lazily without reading the runs (a caller with its own record of each). */
  *rootIdsOfSessionNewestFirst(account: string, sessionId: string): Generator<string> {
    for (const { value } of this.bySession.getRange(prefixRange([account, sessionId], { reverse: true }))) yield value;
  }

  /** Whether the account has any root run in the session (a session exists for its owner). */
  hasSession(account: string, sessionId: string): boolean {
    for (const _ of this.bySession.getKeys({ ...prefixRange([account, sessionId]), limit: 1 })) return true;
    return false;
  }

  /** Every root run of every account (a one-time migration reads them). */
  *allRoots(): Generator<RunState> {
    for (const { value } of this.runs.getRange()) if (!value.parent_run_id) yield value;
  }

  /**
   * Every account's live runs from the active index (never a read of the runs that ended). The
   * runner's start still reads every run (`active()`): after a crash it trusts the runs, not an index.
   */
  activeIndexed(): RunState[] {
    const out: RunState[] = [];
    for (const key of this.byActive.getKeys()) {
      const run = this.runs.get(key[1]);
      if (run && (run.status === 'running' || run.status === 'waiting')) out.push(run);
    }
    return out;
  }

  /** Runs a runner must pick up after a start or a crash: running ones, and waits that are due (a read of every run). */
  active(): RunState[] {
    const out: RunState[] = [];
    for (const { value } of this.runs.getRange()) if (value.status === 'running' || value.status === 'waiting') out.push(value);
    return out;
  }

  /** The run's descendants, breadth first (a pause, a cancel or a resume acts on the whole tree). */
  descendants(runId: string): RunState[] {
    const out = this.children(runId);
    for (let i = 0; i < out.length; i++) out.push(...this.children(out[i]!.run_id));
    return out;
  }

  /** How many runs are below `runId`, counted from the parent index alone, up to `max`. */
  descendantCount(runId: string, max: number): number {
    const queue = [runId];
    for (let i = 0; i < queue.length && queue.length - 1 < max; i++) {
      for (const key of this.byParent.getKeys(prefixRange([queue[i]!]))) queue.push(key[1]);
    }
    return Math.min(queue.length - 1, max);
  }

  children(runId: string): RunState[] {
    const out: RunState[] = [];
    for (const key of this.byParent.getKeys(prefixRange([runId]))) {
      const child = this.runs.get(key[1]);
      if (child) out.push(child);
    }
    return out;
  }
}

function sessionKey(run: RunState): [string, string, string, string] {
  return [run.account, run.session_id!, run.created_at, run.run_id];
}
