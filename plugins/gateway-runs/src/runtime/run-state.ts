import type { WorkflowPolicy } from '../catalog/catalog-record.js';

/** The durable state of a run (reference §3.2, §5). `vars` never leaves the server as is. */
export type RunStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface WaitState {
  reason: 'event' | 'until' | 'user' | 'job' | 'subworkflow';
  wait_key: string | null;
  until: string | null;
  resume_to_node: string | null;
  result_key: string | null;
  prompt: string | null;
  choices: unknown[] | null;
  allow_free_text: boolean;
  details: Record<string, unknown> | null;
}

export interface RunState {
  run_id: string;
  account: string;
  workflow_id: string;
  bundle_id: string;
  bundle_version: string;
  flow_id: string;
  status: RunStatus;
  current_node: string | null;
  vars: Record<string, unknown>;
  input_data: Record<string, unknown>;
  waiting: WaitState | null;
  output: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  actor_id: string;
  session_id: string | null;
  parent_run_id: string | null;
  root_run_id: string;
  /** A built-in child workflow (the agent loop) instead of a bundle flow. */
  builtin: string | null;
  paused: boolean;
  pause_reason: string | null;
  paused_at: string | null;
  resumed_at: string | null;
  /** Counts effect executions, so each one has a stable idempotency key across crashes. */
  effect_index: number;
  /** Steps taken so far, for `limits.maxSteps` (as of the last save; absent on runs made before it existed). */
  steps?: number;
  /** Milliseconds the runtime spent stepping this run so far, for `limits.maxRunCpuMs` (as of the last save). */
  cpu_ms?: number;
  /** `docs` for a docs-question start (`kind: docs`), else a conversation. */
  kind?: 'conversation' | 'docs';
  /**
   * Whether an admin account started this run's tree (recorded at the start, inherited by child
   * runs): an admin's runs follow the gateway workspace policy, others are confined by default.
   * Absent on runs made before it existed, which are then treated as a non-admin's.
   */
  started_by_admin?: boolean;
  /** The catalog version a catalog run executes (child runs inherit it); absent for private bundles. */
  workflow_policy?: WorkflowPolicy | null;
  /**
   * Runs below this one (its children, theirs, ...) that failed or were cancelled, learned as each
   * child ended: the origin lets a parent go on after a child failed, so this is where a failure two
   * levels down stays visible (issue 13 item 5). Absent: none.
   */
  child_failures?: ChildFailure[];
  /**
   * How the runtime attributes the run (reference gateway-surfaces §4.3), filled for automations:
   * `automation` (a controller), `occurrence`, `discussion`; absent on a root run = `chat`.
   */
  session_kind?: 'chat' | 'automation' | 'occurrence' | 'discussion';
  /** The automation the run belongs to; absent = none. */
  automation_id?: string | null;
  /** Its part in an automation (`controller`, `occurrence`, `descendant`, ...); absent = none. */
  role?: string | null;
  /** Which firing of its automation an occurrence is; absent = none. */
  occurrence_index?: number | null;
  /** Where a listener run (RN §7.2) starts: its `on_event` node instead of the flow's entry. */
  entry_node?: string | null;
}

/** A failed or cancelled run below a run, as `GET /runs/{id}` lists it in `child_failures`. */
export interface ChildFailure {
  run_id: string;
  /** The run that started it (the run itself for a direct child). */
  parent_run_id: string;
  workflow_id: string;
  status: 'failed' | 'cancelled';
  error: string | null;
}

/** A fresh root run of a resolved workflow, running from its entry; callers set what differs. */
export function newRunState(fields: Pick<RunState, 'run_id' | 'account' | 'workflow_id' | 'bundle_id' | 'bundle_version' | 'flow_id' | 'vars' | 'input_data' | 'session_id' | 'builtin'> & Partial<RunState>): RunState {
  const now = new Date().toISOString();
  return {
    status: 'running',
    current_node: null,
    waiting: null,
    output: null,
    error: null,
    created_at: now,
    updated_at: now,
    actor_id: 'gateway',
    parent_run_id: null,
    root_run_id: fields.run_id,
    paused: false,
    pause_reason: null,
    paused_at: null,
    resumed_at: null,
    effect_index: 0,
    kind: 'conversation',
    ...fields,
  };
}

export function isTerminal(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** What `GET /runs/{id}` returns: everything but `vars` and internals. */
export function runView(run: RunState) {
  return {
    run_id: run.run_id,
    workflow_id: run.workflow_id,
    status: run.status,
    current_node: run.current_node,
    created_at: run.created_at,
    updated_at: run.updated_at,
    actor_id: run.actor_id,
    session_id: run.session_id,
    parent_run_id: run.parent_run_id,
    root_run_id: run.root_run_id,
    error: run.error,
    waiting: run.waiting,
    paused: run.paused,
    pause_reason: run.pause_reason,
    paused_at: run.paused_at,
    resumed_at: run.resumed_at,
    output: run.output,
    flow_warnings: null,
    is_scheduled: run.builtin === 'scheduler',
    schedule: run.builtin === 'scheduler' ? ((run.vars._meta as { schedule?: unknown } | undefined)?.schedule ?? null) : null,
    is_draft: run.bundle_version.startsWith('draft.'),
    workflow_policy: run.workflow_policy ?? null,
    child_failures: run.child_failures ?? [],
    /** What the run's `input_data.skills` resolved to (`@keel/plugin-skills`), or null. */
    skills_resolution: ((run.vars._runtime as { skills_resolution?: unknown } | undefined)?.skills_resolution ?? null) as unknown,
    /** What history replay did at the start (`_runtime.session_history`); null when the start did not ask. */
    session_history: ((run.vars._runtime as Record<string, unknown> | undefined)?.session_history ?? null) as Record<string, unknown> | null,
  };
}
