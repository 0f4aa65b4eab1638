/**
 * `runs.directory` (issue 12, Contract 2): what other plugins (artifacts) may know about runs —
 * whether a caller may see one, and whether an account has a session — without reading the run store.
 */
import path from 'node:path';
import { token, type Principal } from '@keel/plugin-sdk';
import { MARKER_FILE, type RunWorkspace, type WorkspaceService } from '@keel/plugin-workspaces';
import type { FolderUsage } from '../workspace/folder-quota.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import type { RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';

/** The facts of a run another plugin may rely on. `workspace` is the root run's (children share it). */
export interface RunFacts {
  run_id: string;
  root_run_id: string;
  parent_run_id: string | null;
  account: string;
  session_id: string | null;
  workflow_id: string | null;
  status: string;
  created_at: string;
  workspace: RunWorkspace | null;
}

export interface RunsDirectory {
  /** The run if `principal` may see it (its owner, or an admin), else null (answer 404). */
  visibleRun(principal: Principal, runId: string): Promise<RunFacts | null>;
  /** Whether the account owns a session with this id (has a run in it). */
  sessionExists(account: string, sessionId: string): Promise<boolean>;
  /**
   * Runs `write` (a file of `bytes` bytes to the real path `real`) held to the quota of the run
   * folder `root` that the file tools are held to (settings workspace.maxFolderBytes,
   * maxFolderEntries, maxPathDepth), serialised with their writes to that folder. Throws a
   * `ToolRefusal` (its message is the sentence) when the write would take the folder past it;
   * `shown` is the path as the caller gave it. Optional for other providers of the token.
   */
  writeWithinQuota?<T>(root: string, real: string, shown: string, bytes: number, write: () => Promise<T>): Promise<T>;
}

export const runsDirectoryToken = token<RunsDirectory>('runs.directory');

export interface RunsDirectoryDeps {
  /** The run's current state (the in-memory one while this process works on it). */
  load(runId: string): RunState | undefined;
  runs: Pick<RunStore, 'hasSession'>;
  isAdmin(principal: Principal): boolean;
  workspaces: Pick<WorkspaceService, 'recorded'>;
  /** The run folders' usage the file tools are held to (shared with them), and their quota. */
  usage?: FolderUsage;
  quota?: ToolLimits;
}

/**
 * What a root run works under: what its start recorded in the workspaces service, else the public
 * `_gateway_workspace` of a run from before it (no layer: the service reads its level).
 */
export function workspaceOf(workspaces: Pick<WorkspaceService, 'recorded'>, root: RunState | undefined): RunWorkspace | null {
  if (!root) return null;
  const stored = workspaces.recorded(root.run_id);
  if (stored) return stored;
  const recorded = root.input_data?._gateway_workspace as Partial<RunWorkspace> | undefined;
  if (!recorded || typeof recorded !== 'object' || typeof recorded.path !== 'string') return null;
  // `layer` left out (not null): the service reads an old record's level as what it meant.
  return { level: recorded.level ?? 'gateway', summary: recorded.summary ?? '', kind: recorded.kind ?? 'run', path: recorded.path, ...(recorded.clamped ? { clamped: recorded.clamped } : {}) } as RunWorkspace;
}

export class RunsDirectoryService implements RunsDirectory {
  constructor(private readonly deps: RunsDirectoryDeps) {}

  async visibleRun(principal: Principal, runId: string): Promise<RunFacts | null> {
    const run = this.deps.load(runId);
    if (!run || (run.account !== principal.account && !this.deps.isAdmin(principal))) return null;
    return this.factsOf(run);
  }

  /** The facts of a run the caller already knows it may see (no visibility check). */
  factsOf(run: RunState): RunFacts {
    const root = run.root_run_id === run.run_id ? run : this.deps.load(run.root_run_id);
    return {
      run_id: run.run_id,
      root_run_id: run.root_run_id,
      parent_run_id: run.parent_run_id,
      account: run.account,
      session_id: run.session_id,
      workflow_id: run.workflow_id ?? null,
      status: run.status,
      created_at: run.created_at,
      workspace: workspaceOf(this.deps.workspaces, root),
    };
  }

  async writeWithinQuota<T>(root: string, real: string, shown: string, bytes: number, write: () => Promise<T>): Promise<T> {
    const { usage, quota } = this.deps;
    if (!usage || !quota) return write();
    return usage.serialised(root, async () => {
      const settle = await usage.chargeWrite(root, real, shown, bytes, quota, path.join(root, MARKER_FILE), new AbortController().signal);
      let ok = false;
      try {
        const result = await write();
        ok = true;
        return result;
      } finally {
        settle(ok);
      }
    });
  }

  async sessionExists(account: string, sessionId: string): Promise<boolean> {
    // The session index (root runs), never a read of every run of the account.
    return this.deps.runs.hasSession(account, sessionId);
  }
}
