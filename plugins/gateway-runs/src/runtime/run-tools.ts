/** A TOOL_CALLS effect: the calls run in the root run's folder, under the workspace policy and the step's budgets. */
import type { ToolCallsPayload } from '../flow/effect-requests.js';
import type { ToolLimits } from '../workspace/tool-limits.js';
import { runToolStep, toolCallsOf } from '../workspace/tool-step.js';
import { reachOf, type NonAdminReach, type WorkspacePolicy } from '../workspace/workspace-policy.js';
import type { RunSignalSource } from './collaborators.js';
import type { RunState } from './run-state.js';

/** Runs a TOOL_CALLS payload's calls in the run's workspace: `{mode: 'executed', results}`. */
export interface ToolRunner {
  runTools(run: RunState, payload: ToolCallsPayload): Promise<Record<string, unknown>>;
}

export interface RunToolsDeps {
  workspaces: WorkspacePolicy;
  nonAdminWorkspace: NonAdminReach;
  /** The file tools' size and time budgets (`workspace.*`). */
  toolLimits: ToolLimits;
  signals: RunSignalSource;
}

export class RunTools implements ToolRunner {
  constructor(private readonly deps: RunToolsDeps) {}

  async runTools(run: RunState, payload: ToolCallsPayload): Promise<Record<string, unknown>> {
    const reach = reachOf(run.started_by_admin, this.deps.nonAdminWorkspace);
    await this.deps.workspaces.ensureRunFolder(run.root_run_id, run.account, reach);
    const { calls, allowed } = toolCallsOf(payload, run.effect_index);
    const step = { policy: this.deps.workspaces, rootRunId: run.root_run_id, reach, limits: this.deps.toolLimits, signal: this.deps.signals.signalOf(run.run_id) };
    return runToolStep(step, calls, allowed);
  }
}
