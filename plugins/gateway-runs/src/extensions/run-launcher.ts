/**
 * `runs.launcher` (issue 15, Contract L): how another plugin (automations) starts, stops and reads
 * root runs without an HTTP request — through the same pipeline as `POST /runs/start` (workflow
 * resolution, start checks, the active-run cap, workspace resolution, preparers), never around it.
 */
import { token, type Principal } from '@keel/plugin-sdk';
import type { ResolvedWorkflow } from '../routes/start-run.js';

/** What a run is asked to run: a bundle entrypoint, or `@default` with an interface (as `POST /runs/start`). */
export interface LaunchTarget {
  bundle_id?: string;
  bundle_version?: string;
  flow_id?: string;
  interface?: string;
  registry_scope?: 'tenant_catalog';
}

/** The workflow a target resolved to (seed 000 §2.1 `resolved_workflow`): what a start resolves. */
export type LaunchedWorkflow = ResolvedWorkflow;

/** How the run is attributed in `GET /runs` (RunState's optional fields). */
export interface LaunchTags {
  session_kind?: 'automation' | 'occurrence' | 'discussion';
  automation_id?: string;
  role?: string;
  occurrence_index?: number;
}

export interface LaunchRequest {
  /** The owner the run starts as (its account, tenant and roles decide catalog access, admin workspace posture). */
  principal: Principal;
  target: LaunchTarget;
  /** The run's inputs (frozen by the caller); `context.messages` given here is the transcript (history is never seeded on top). */
  inputData: Record<string, unknown>;
  /** The run id to use: a launch with the id of an existing run of the same account starts nothing and answers that run (crash-safe retries). */
  runId: string;
  sessionId: string | null;
  tags?: LaunchTags;
  /**
   * The history window in estimated tokens when `inputData.use_session_history` replays the session
   * (a growing automation's `context.growing.max_tokens`); default: the gateway's `sessionHistory.maxTokens`.
   */
  historyMaxTokens?: number;
}

export interface LaunchResult {
  run_id: string;
  resolved_workflow: LaunchedWorkflow;
  /** False when the run already existed (a retried launch). */
  created: boolean;
}

/** A root run as a caller of the launcher needs to know it. */
export interface RunOutcome {
  run_id: string;
  account: string;
  session_id: string | null;
  status: 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';
  /** The run's output (null until it ends, and for a failed or cancelled run). */
  output: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  /** The open person-wait of the run or a run below it (ask_user, tool approval, event), else null. */
  wait: { run_id: string; wait_key: string | null; kind: string; reason: string; prompt: string | null; choices: unknown[] | null } | null;
  /** The run's workspace folder, when it has one. */
  workspace_root: string | null;
}

/** A `POST /runs/schedule` root as an automation listing shows it (a legacy automation, reference gateway-surfaces §3.6, §8.3). */
export interface LegacySchedule {
  run_id: string;
  status: RunOutcome['status'];
  paused: boolean;
  session_id: string | null;
  /** When the root's session was archived (null: not archived). */
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  schedule: { start_at: string; interval: string | null; repeat_count: number | null; repeat_until: string | null; target_workflow_id: string; target_flow_id: string };
  /** The time the root waits until for its next launch, while it does. */
  wait_until: string | null;
  /** Child runs launched so far. */
  children: number;
  /** The newest child run, or null before the first launch. */
  last_child: RunOutcome | null;
}

/** A root run that ended, told in the process that executed it. */
export type RunEndedListener = (run: RunOutcome & { automation_id: string | null; role: string | null; occurrence_index: number | null }) => Promise<void> | void;

export interface RunLauncher {
  /**
   * Resolves a target as a start would, without starting anything; throws the start's HttpError
   * (400/404/409 with its sentence) when it cannot run for this principal.
   */
  resolve(principal: Principal, target: LaunchTarget): LaunchedWorkflow;
  /** Starts (or finds, see `runId`) a root run; throws the start's HttpError (429 when the account is at its active-run cap). */
  launch(request: LaunchRequest): Promise<LaunchResult>;
  /** Queues a durable `cancel` of the run's tree (idempotent by commandId), as `POST /commands` would. */
  cancel(account: string, runId: string, commandId: string, reason: string | null): Promise<void>;
  /** The run as stored now, or null when it does not exist. */
  outcome(runId: string): RunOutcome | null;
  /** The account's `POST /runs/schedule` roots, newest first, read lazily (optional for other providers of the token). */
  legacySchedules?(account: string): Iterable<LegacySchedule>;
  /** True when this process executes runs (holds the runner lock): the place for schedulers. */
  executesRuns(): boolean;
  /** Calls `listener` once this process executes runs (at once when it already does). */
  whenExecuting(listener: () => void): void;
}

export const runLauncherToken = token<RunLauncher>('runs.launcher');
