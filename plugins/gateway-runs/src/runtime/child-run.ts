/**
 * The state of a child run an effect or a command launches (a subflow, the agent loop, a memory
 * summary): the parent's identity and plane, its own vars (the parent's `_runtime` settings and
 * workspace carried over, the parent's conversation when `inherit_context`), fresh budgets.
 */
import type { RunState } from './run-state.js';

export function childRunState(parent: RunState, id: string, payload: Record<string, unknown>, parentWorkspace: () => unknown): RunState {
  const now = new Date().toISOString();
  const parentVars = parent.vars as Record<string, unknown>;
  const vars = { ...((payload.vars ?? {}) as Record<string, unknown>) };
  const parentRuntime = (parentVars._runtime ?? {}) as Record<string, unknown>;
  vars._runtime = { ...parentRuntime, ...((vars._runtime ?? {}) as Record<string, unknown>) };
  vars._gateway_workspace = parentVars._gateway_workspace ?? parentWorkspace();
  if (payload.inherit_context) vars.context = parentVars.context ?? vars.context;
  const builtin = (payload.builtin as string | undefined) ?? null;
  return {
    ...parent,
    run_id: id,
    workflow_id: builtin ? String(payload.workflow_id) : `${parent.bundle_id}@${parent.bundle_version}:${String(payload.workflow_id)}`,
    flow_id: builtin ? parent.flow_id : String(payload.workflow_id),
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
