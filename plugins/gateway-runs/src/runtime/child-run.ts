/**
 * Child runs an effect or a command launches (a subflow, the agent loop, a memory summary, a
 * schedule's occurrence): created once per launching effect (a replay finds the one it made), with
 * the parent's identity and plane, their own vars (the parent's `_runtime` settings and workspace
 * carried over, the parent's conversation when `inherit_context`) and fresh budgets; when one ends,
 * the parent waiting on it resumes with `{sub_run_id, output}` (reference §3.3).
 */
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { isRecord } from '../flow/effect-requests.js';
import { localFlowId } from '../flow/subflow-ref.js';
import { workspaceVar } from '../workspace/run-workspace.js';
import type { ChildRunRequest, ChildRunStarter, RunLock, RunResumer } from './collaborators.js';
import { childRunId } from './records.js';
import type { RunFlows } from './run-flows.js';
import { isTerminal, type ChildFailure, type RunState } from './run-state.js';
import type { RunStates } from './run-states.js';

export interface ChildRunsDeps {
  lock: RunLock;
  states: Pick<RunStates, 'load' | 'createRun'>;
  /** Resumes the parent waiting on a child that ended. */
  resumer: RunResumer;
  /** Where a child of a run saved without its folder finds its root's. */
  workspaces: Pick<WorkspaceService, 'recorded'>;
  /** Whether a `subflow` node's flow is in its run's bundle. */
  flows: Pick<RunFlows, 'hasFlow'>;
  /** `limits.maxChildFailuresListed`: how many failures below a run its row lists. */
  maxFailuresListed: number;
  /** `limits.maxRunDepth`: how many runs deep below its root a child may be (a subflow naming its own flow recursed for ever). */
  maxRunDepth: number;
  /** `limits.maxRunsPerTree`: how many runs one root may have below it (two self-calling subflows doubled at every level). */
  maxRunsPerTree: number;
  /** How many runs are stored below a root, counted up to `max`. */
  treeSize(rootRunId: string, max: number): number;
}

/** Roots whose tree sizes are cached at most (the store is the truth: a dropped one is counted again). */
const TREE_SIZES_CACHED = 10_000;

/** A flow's `subflow` names a flow its bundle lacks: the parent's effect fails with the origin's sentence (RN §6). */
export class SubflowNotFoundError extends Error {}

export class ChildRuns implements ChildRunStarter {
  /** Runs below each root, as counted here (from the store the first time a root is seen). */
  private readonly treeSizes = new Map<string, number>();

  constructor(private readonly deps: ChildRunsDeps) {}

  async startChild(parent: RunState, key: string, asked: ChildRunRequest): Promise<string> {
    const id = childRunId(key);
    if (this.deps.states.load(id)) return id;
    const request = asked.builtin ? asked : { ...asked, workflow_id: localFlowId(asked.workflow_id, parent.bundle_id, parent.bundle_version) };
    if (!request.builtin && !this.deps.flows.hasFlow(parent, request.workflow_id)) throw new SubflowNotFoundError(`Workflow '${asked.workflow_id}' not found in registry`);
    if (this.depthOf(parent) >= this.deps.maxRunDepth) {
      // Every child has fresh budgets and only roots count against the account's cap: depth is the bound.
      const what = request.builtin ? `the ${request.builtin} run` : `subflow '${asked.workflow_id}'`;
      throw new Error(`A run may nest at most ${this.deps.maxRunDepth} runs below its root (setting \`limits.maxRunDepth\` of the gateway-runs plugin); ${what} was not started.`);
    }
    this.countInTree(parent.root_run_id, request.builtin ? `the ${request.builtin} run` : `subflow '${asked.workflow_id}'`);
    const recorded = this.deps.workspaces.recorded(parent.root_run_id);
    const child = childRunState(parent, id, request, () => (recorded ? workspaceVar(recorded) : null));
    await this.deps.states.createRun(child);
    return id;
  }

  /** Counts one more run below `rootRunId`, or refuses it past `maxRunsPerTree`. */
  private countInTree(rootRunId: string, what: string): void {
    const max = this.deps.maxRunsPerTree;
    const size = this.treeSizes.get(rootRunId) ?? this.deps.treeSize(rootRunId, max);
    if (size >= max) throw new Error(`A run tree may hold at most ${max} runs below its root (setting \`limits.maxRunsPerTree\` of the gateway-runs plugin); ${what} was not started.`);
    if (this.treeSizes.size >= TREE_SIZES_CACHED) this.treeSizes.clear();
    this.treeSizes.set(rootRunId, size + 1);
  }

  /** How many runs `run` is below its root (0 for the root), counted up to the limit. */
  private depthOf(run: RunState): number {
    let depth = 0;
    let at: RunState | undefined = run;
    while (at?.parent_run_id && depth < this.deps.maxRunDepth) {
      depth++;
      at = this.deps.states.load(at.parent_run_id);
    }
    return depth;
  }

  /**
   * The listener run of an `on_event` node for a root run (RN §7.2): the root's flow from that
   * node, as the workflow `visual_event_listener_<flow>_<node>`, with copies of the root's
   * `_runtime` and `_limits` only, in the root's session. Made once per root and node.
   */
  async startListener(root: RunState, nodeId: string): Promise<string> {
    const id = childRunId(`listener:${root.run_id}:${nodeId}`);
    if (this.deps.states.load(id)) return id;
    const workflowId = `visual_event_listener_${sanitizeId(root.workflow_id)}_${sanitizeId(nodeId)}`;
    const vars: Record<string, unknown> = {};
    for (const name of ['_runtime', '_limits']) if (root.vars[name] !== undefined) vars[name] = structuredClone(root.vars[name]);
    const recorded = this.deps.workspaces.recorded(root.root_run_id);
    const child = childRunState(root, id, { workflow_id: workflowId, vars }, () => (recorded ? workspaceVar(recorded) : null));
    Object.assign(child, { workflow_id: workflowId, flow_id: root.flow_id, entry_node: nodeId });
    await this.deps.states.createRun(child);
    return id;
  }

  /**
   * A parent waiting on this finished child gets `{sub_run_id, output}` (RN §6: a failed or
   * cancelled child's output with `success: false`, `error`, `cancelled`). The parent goes on, as
   * in the origin, but keeps the failure: its run row's `child_failures` and the resume record
   * list the child when it failed and every failure the child itself kept from below.
   */
  async resumeParentOf(child: RunState): Promise<void> {
    if (!child.parent_run_id || !isTerminal(child.status)) return;
    await this.deps.lock.run(child.parent_run_id, async () => {
      const parent = this.deps.states.load(child.parent_run_id!);
      // A paused parent is resumed with the child's result later (the repair after its resume): nothing is kept before then.
      if (!parent || parent.status !== 'waiting' || parent.paused || parent.waiting?.wait_key !== `subworkflow:${child.run_id}`) return;
      const output: Record<string, unknown> = isRecord(child.output) ? { ...child.output } : { result: child.output ?? null };
      const failures: ChildFailure[] = [...(child.child_failures ?? [])];
      if (child.status !== 'completed') {
        output.success = false;
        if (child.status === 'cancelled') output.cancelled = true;
        output.error = child.error;
        failures.unshift({ run_id: child.run_id, parent_run_id: parent.run_id, workflow_id: child.workflow_id, status: child.status as ChildFailure['status'], error: child.error });
      }
      if (failures.length) {
        const kept = parent.child_failures ?? [];
        const known = new Set(kept.map((f) => f.run_id));
        parent.child_failures = [...kept, ...failures.filter((f) => !known.has(f.run_id))].slice(0, Math.max(kept.length, this.deps.maxFailuresListed));
      }
      await this.deps.resumer.resumeWith(parent, { sub_run_id: child.run_id, output }, undefined, failures.length ? { child_failures: failures.slice(0, this.deps.maxFailuresListed) } : {});
    });
  }
}

/** Whether a run is an `on_event` listener run (it starts at its own entry node). */
export function isListenerRun(run: RunState): boolean {
  return run.parent_run_id !== null && typeof run.entry_node === 'string';
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
    session_id: request.session_id ?? parent.session_id,
    parent_run_id: parent.run_id,
    root_run_id: parent.root_run_id,
    paused: false,
    pause_reason: null,
    paused_at: null,
    resumed_at: null,
    effect_index: 0,
    // The parent's failures below it and its listener start are the parent's.
    child_failures: undefined,
    entry_node: undefined,
    // Its own budgets: the parent's counts are the parent's.
    steps: 0,
    cpu_ms: 0,
  };
}

/** A workflow id as a part of another (the origin's rule): characters outside `[A-Za-z0-9_-]` become `_`. */
function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The spread of `{...value}` as the child's `_runtime` merge did it: an object's own keys, else nothing. */
function objectOrEmpty(value: unknown): object {
  return value !== null && typeof value === 'object' ? value : {};
}
