/**
 * The state of runs: created with their ledger in one commit, read from LMDB, and kept in memory
 * while this process works on them (only where the runner runs; elsewhere LMDB is the truth).
 * Steps mutate the in-memory state; `save` and `saveWith` make it durable.
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
    run.updated_at = new Date().toISOString();
    await this.deps.runs.save(run);
  }

  async saveWith(run: RunState, records: StepRecord[]): Promise<number[]> {
    run.updated_at = new Date().toISOString();
    return this.deps.ledger.appendAll(run.run_id, records, () => this.deps.runs.writeInTransaction(run));
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
  }
}
