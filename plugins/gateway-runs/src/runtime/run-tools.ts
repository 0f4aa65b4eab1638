/** A TOOL_CALLS effect: the calls run in the root run's folder, under the workspace policy and the step's budgets. */
import type { ToolCallsPayload } from '../flow/effect-requests.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import { runToolStep, toolCallsOf } from '../workspace/tool-step.js';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { FolderUsage } from '../workspace/folder-quota.js';
import { runWorkspaceOf } from '../workspace/run-workspace.js';
import type { RunSignalSource } from './collaborators.js';
import type { RunState } from './run-state.js';

/** Runs a TOOL_CALLS payload's calls in the run's workspace: `{mode: 'executed', results}`. */
export interface ToolRunner {
  runTools(run: RunState, payload: ToolCallsPayload): Promise<Record<string, unknown>>;
}

export interface RunToolsDeps {
  workspaces: WorkspaceService;
  /** The file tools' size and time budgets (`workspace.*`). */
  toolLimits: ToolLimits;
  signals: RunSignalSource;
}

export class RunTools implements ToolRunner {
  /** What the run folders hold, for their quota (see folder-quota.ts). */
  private readonly usage = new FolderUsage();

  constructor(private readonly deps: RunToolsDeps) {}

  async runTools(run: RunState, payload: ToolCallsPayload): Promise<Record<string, unknown>> {
    // The root's recorded workspace (a run from before the workspaces plugin gets one resolved now, clamped).
    const ws = await runWorkspaceOf(this.deps.workspaces, { run_id: run.root_run_id, account: run.account, started_by_admin: run.started_by_admin, session_id: null, input_data: {} });
    const { calls, allowed } = toolCallsOf(payload, run.effect_index);
    const step = { workspaces: this.deps.workspaces, ws, account: run.account, usage: this.usage, limits: this.deps.toolLimits, signal: this.deps.signals.signalOf(run.run_id) };
    return runToolStep(step, calls, allowed);
  }
}
