/**
 * Child runs an effect or a command launches (a subflow, the agent loop, a memory summary, a
 * schedule's occurrence): created once per launching effect (a replay finds the one it made), with
 * the parent's identity and plane, their own vars (the parent's `_runtime` settings and workspace
 * carried over, the parent's conversation when `inherit_context`) and fresh budgets; when one ends,
 * the parent waiting on it resumes with `{sub_run_id, output}` (reference §3.3).
 */
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { workspaceVar } from '../workspace/run-workspace.js';
import type { ChildRunRequest, ChildRunStarter, RunLock, RunResumer } from './collaborators.js';
import { childRunId } from './records.js';
import { isTerminal, type RunState } from './run-state.js';
import type { RunStates } from './run-states.js';

export interface ChildRunsDeps {
  lock: RunLock;
  states: Pick<RunStates, 'load' | 'createRun'>;
  /** Resumes the parent waiting on a child that ended. */
  resumer: RunResumer;
  /** Where a child of a run saved without its folder finds its root's. */
  workspaces: Pick<WorkspaceService, 'recorded'>;
}

export class ChildRuns implements ChildRunStarter {
  constructor(private readonly deps: ChildRunsDeps) {}

  async startChild(parent: RunState, key: string, request: ChildRunRequest): Promise<string> {
    const id = childRunId(key);
    if (this.deps.states.load(id)) return id;
    const recorded = this.deps.workspaces.recorded(parent.root_run_id);
    const child = childRunState(parent, id, request, () => (recorded ? workspaceVar(recorded) : null));
    await this.deps.states.createRun(child);
    return id;
  }

  /** A parent waiting on this finished child gets `{sub_run_id, output}`. */
  async resumeParentOf(child: RunState): Promise<void> {
    if (!child.parent_run_id || !isTerminal(child.status)) return;
    await this.deps.lock.run(child.parent_run_id, async () => {
      const parent = this.deps.states.load(child.parent_run_id!);
      if (!parent || parent.status !== 'waiting' || parent.waiting?.wait_key !== `subworkflow:${child.run_id}`) return;
      const output: Record<string, unknown> = { ...(child.output ?? {}) };
      if (child.status !== 'completed') {
        output.success = false;
        if (child.status === 'cancelled') output.cancelled = true;
        output.error = child.error;
      }
      await this.deps.resumer.resumeWith(parent, { sub_run_id: child.run_id, output });
    });
  }
}

export function childRunState(parent: RunState, id: string, request: ChildRunRequest, parentWorkspace: () => unknown): RunState {
  const now = new Date().toISOString();
  const parentVars = parent.vars;
  const vars: Record<string, unknown> = { ...(request.vars ?? {}) };
  vars._runtime = { ...objectOrEmpty(parentVars._runtime), ...objectOrEmpty(vars._runtime) };
  vars._gateway_workspace = parentVars._gateway_workspace ?? parentWorkspace();
  if (request.inherit_context) vars.context = parentVars.context ?? vars.context;
  const builtin = request.builtin ?? null;
  return {
    ...parent,
    run_id: id,
    workflow_id: builtin ? request.workflow_id : `${parent.bundle_id}@${parent.bundle_version}:${request.workflow_id}`,
    flow_id: builtin ? parent.flow_id : request.workflow_id,
    builtin,
    status: 'running',
    current_node: null,
    vars,
    input_data: structuredClone(vars),
    waiting: null,
    output: null,
    error: null,
    created_at: now,
    updated_at: now,
    parent_run_id: parent.run_id,
    root_run_id: parent.root_run_id,
    paused: false,
    pause_reason: null,
    paused_at: null,
    resumed_at: null,
    effect_index: 0,
    // Its own budgets: the parent's counts are the parent's.
    steps: 0,
    cpu_ms: 0,
  };
}

/** The spread of `{...value}` as the child's `_runtime` merge did it: an object's own keys, else nothing. */
function objectOrEmpty(value: unknown): object {
  return value !== null && typeof value === 'object' ? value : {};
}
