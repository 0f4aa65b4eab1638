/**
 * The state of runs: created with their ledger in one commit, read from LMDB, and kept in memory
 * while this process works on them (only where the runner runs; elsewhere LMDB is the truth).
 * Steps mutate the in-memory state; `save` and `saveWith` make it durable.
 *
 * The records of `buffered` effects (effect-durability.ts) are staged here and committed ahead of
 * the run's next commit. Every append and state write of a run goes through this class (or takes
 * the staged records, as the run's end does), so the ledger keeps step order and a state is never
 * durable without the records that led to it.
 */
import type { LedgerStore, StepRecord } from '@keel/plugin-ledger';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { runWorkspaceOf, workspaceVar } from '../workspace/run-workspace.js';
import type { RunPersistence } from './collaborators.js';
import { isTerminal, type RunState } from './run-state.js';
import type { RunStore } from './run-store.js';

export interface RunStatesDeps {
  /**
   * Whether this process executes runs now (its runner holds the lock): only then are runs kept in
   * memory; a server whose runs another process executes must read LMDB, or it shows stale states.
   */
  cacheLive: () => boolean;
  runs: RunStore;
  ledger: LedgerStore;
  /** Resolves each root run's workspace policy and makes its folder. */
  workspaces: WorkspaceService;
}

export class RunStates implements RunPersistence {
  /** The live state of runs this process works on. */
  private readonly live = new Map<string, RunState>();
  /** Staged records per run, oldest first, and the ledger bytes they hold. */
  private readonly staged = new Map<string, { records: StepRecord[]; bytes: number }>();

  constructor(private readonly deps: RunStatesDeps) {}

  /** The run's current state (the in-memory one while this process works on it). */
  load(runId: string): RunState | undefined {
    const cached = this.live.get(runId);
    if (cached) return cached;
    const stored = this.deps.runs.get(runId);
    if (stored && this.deps.cacheLive() && !isTerminal(stored.status)) this.live.set(runId, stored);
    return stored;
  }

  async createRun(run: RunState): Promise<void> {
    // Every root run gets a workspace folder (children share their root's): resolved at its start
    // door when that door did (HTTP), else here, clamped; server-written, a client value is replaced.
    if (run.parent_run_id === null) {
      const workspace = workspaceVar(await runWorkspaceOf(this.deps.workspaces, run));
      run.vars._gateway_workspace = workspace;
      run.input_data._gateway_workspace = workspace;
    }
    // One commit: a crash cannot leave a run the runner would execute without a ledger to write to, or the reverse.
    await this.deps.ledger.registerRun({ run_id: run.run_id, account: run.account, parent_run_id: run.parent_run_id, root_run_id: run.root_run_id, terminal: false, status: run.status }, () => this.deps.runs.createInTransaction(run));
    if (this.deps.cacheLive()) this.live.set(run.run_id, run);
  }

  async save(run: RunState): Promise<void> {
    if (this.staged.has(run.run_id)) {
      await this.saveWith(run, []);
      return;
    }
    run.updated_at = new Date().toISOString();
    await this.deps.runs.save(run);
  }

  /** Appends the staged records, then `records`, and saves the state, in one commit; resolves with the cursors of `records`. */
  async saveWith(run: RunState, records: StepRecord[]): Promise<number[]> {
    run.updated_at = new Date().toISOString();
    return this.append(run.run_id, records, () => this.deps.runs.writeInTransaction(run));
  }

  /** Appends the staged records, then `records`, in one commit (the state is not written); resolves with the cursors of `records`. */
  commitRecords(run: RunState, records: StepRecord[]): Promise<number[]> {
    return this.append(run.run_id, records);
  }

  /**
   * Holds records for the run's next commit. Over a ledger limit it throws `LedgerLimitError` now
   * and holds nothing, as an append would.
   */
  stage(run: RunState, records: StepRecord[]): void {
    if (!records.length) return;
    const held = this.staged.get(run.run_id);
    const bytes = this.deps.ledger.measure(run.run_id, records, held?.bytes ?? 0);
    if (held) {
      held.records.push(...records);
      held.bytes += bytes;
    } else this.staged.set(run.run_id, { records: [...records], bytes });
  }

  /** Throws `LedgerLimitError` when appending `records` (behind the staged ones) would go over a ledger limit. */
  check(run: RunState, records: StepRecord[]): void {
    if (records.length) this.deps.ledger.measure(run.run_id, records, this.staged.get(run.run_id)?.bytes ?? 0);
  }

  /** Commits the staged records and the state, if any record is staged. */
  async flush(run: RunState): Promise<void> {
    if (this.staged.has(run.run_id)) await this.saveWith(run, []);
  }

  /** Takes the staged records for a commit the caller makes (the run's end); `restage` them if it fails. */
  takeStaged(runId: string): StepRecord[] {
    const held = this.staged.get(runId);
    this.staged.delete(runId);
    return held?.records ?? [];
  }

  /** Puts back records taken for a commit that failed, ahead of any staged since. */
  restage(runId: string, records: StepRecord[], bytes = 0): void {
    if (!records.length) return;
    const held = this.staged.get(runId);
    this.staged.set(runId, { records: [...records, ...(held?.records ?? [])], bytes: bytes + (held?.bytes ?? 0) });
  }

  /** The staged records of a run (not committed yet), oldest first. */
  stagedOf(runId: string): readonly StepRecord[] {
    return this.staged.get(runId)?.records ?? [];
  }

  private async append(runId: string, records: StepRecord[], alongside?: () => void): Promise<number[]> {
    const held = this.staged.get(runId);
    if (!held) return this.deps.ledger.appendAll(runId, records, alongside);
    this.staged.delete(runId);
    try {
      const cursors = await this.deps.ledger.appendAll(runId, [...held.records, ...records], alongside);
      return cursors.slice(held.records.length);
    } catch (err) {
      this.restage(runId, held.records, held.bytes);
      throw err;
    }
  }

  /** Whether token deltas are on for this run's tree (its root's `_runtime.stream`). */
  streams(run: RunState): boolean {
    const root = run.root_run_id === run.run_id ? run : this.load(run.root_run_id);
    const runtime = root?.vars._runtime;
    return runtime !== null && typeof runtime === 'object' && 'stream' in runtime && runtime.stream === true;
  }

  /** The run ended: its state is LMDB's alone. */
  forget(runId: string): void {
    this.live.delete(runId);
    this.staged.delete(runId);
  }
}
