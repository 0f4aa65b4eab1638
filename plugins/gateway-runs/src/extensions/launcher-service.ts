/**
 * The `runs.launcher` token (run-launcher.ts is the contract): root runs started through the same
 * pipeline as `POST /runs/start`, stopped through the durable command queue as `POST /commands`
 * would, and read as they are now.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, isHttpError, KEY_ID_MAX_LENGTH, notFound, type Principal } from '@keel/plugin-sdk';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import type { StartPipeline } from '../routes/start-pipeline.js';
import type { StartBody } from '../routes/start-run.js';
import type { CommandStore } from '../runner/command-store.js';
import { isListenerRun } from '../runtime/child-run.js';
import { KeyedLock } from '../runtime/keyed-lock.js';
import type { RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import { workspaceOf } from './runs-directory.js';
import { tagsRefusal } from './launch-tags.js';
import type { LaunchedWorkflow, LaunchRequest, LaunchResult, LaunchTarget, LegacySchedule, RunLauncher, RunOutcome } from './run-launcher.js';
import type { ScheduleMeta } from '../runtime/schedule.js';

export interface LauncherDeps {
  pipeline: StartPipeline;
  /** A run's current state (the in-memory one while this process executes it). */
  load(runId: string): RunState | undefined;
  runs: Pick<RunStore, 'descendants' | 'scheduleRootIdsNewestFirst' | 'childIds'>;
  /** When the account's session was archived, else null. */
  archivedAt(account: string, sessionId: string): string | null;
  commands: CommandStore;
  kickCommands(): void;
  workspaces: Pick<WorkspaceService, 'recorded'>;
  /** Whether this process executes runs, and a call once it does. */
  executing: { active: boolean; whenActive(listener: () => void): void };
}

export class RunLauncherService implements RunLauncher {
  /** Launches of one run id one at a time: a retried launch racing the first finds its run. */
  private readonly launches = new KeyedLock();

  constructor(private readonly d: LauncherDeps) {}

  resolve(principal: Principal, target: LaunchTarget): LaunchedWorkflow {
    return this.d.pipeline.resolve(startBodyOf(target, {}, null), principal).resolved;
  }

  launch(request: LaunchRequest): Promise<LaunchResult> {
    const { principal, runId } = request;
    // Run ids are storage keys and folder names: the same bound as a start's ids.
    if (typeof runId !== 'string' || !runId.trim() || runId.length > KEY_ID_MAX_LENGTH) {
      return Promise.reject(badRequest(`A launch needs a run id of 1 to ${KEY_ID_MAX_LENGTH} characters.`, { code: 'invalid_request', field: 'runId' }));
    }
    const badTags = tagsRefusal(request.tags);
    if (badTags) return Promise.reject(badRequest(badTags, { code: 'invalid_request', field: 'tags' }));
    return this.launches.run(runId, async () => {
      const existing = this.d.load(runId);
      if (existing) {
        // The same account's run: a retried launch (after a crash) answers it and starts nothing.
        if (existing.account !== principal.account || existing.parent_run_id !== null) throw conflict(`Run id '${runId}' is taken by another run; launch under another id.`, { code: 'run_exists' });
        return { run_id: runId, resolved_workflow: existing.input_data.workflow_selection as LaunchedWorkflow, created: false };
      }
      // The caller's transcript (`context.messages`) wins over history replay as on any start (session-history.ts).
      const body = startBodyOf(request.target, request.inputData, request.sessionId);
      // Stored choices are clamped to the policy of this moment, never refused: the definition was checked when saved.
      const { resolution } = await this.d.pipeline.start(body, principal, { runId, tags: request.tags, workspaceDoor: 'clamp', launched: true, ...(historyWindow(request.historyMaxTokens) ?? {}) });
      return { run_id: runId, resolved_workflow: resolution.resolved, created: true };
    });
  }

  async cancel(account: string, runId: string, commandId: string, reason: string | null): Promise<void> {
    const run = this.d.load(runId);
    if (!run || run.account !== account) throw notFound(`Run '${runId}' not found.`);
    const submit = (id: string) => this.d.commands.submit({
      command_id: id,
      run_id: runId,
      type: 'cancel',
      payload: reason === null ? {} : { reason },
      ts: new Date().toISOString(),
      client_id: null,
      account,
    });
    let receipt: Awaited<ReturnType<typeof submit>>;
    try {
      receipt = await submit(commandId);
    } catch (err) {
      // The id is another account's (command ids are one namespace; the caller's may be guessable): the cancel still goes, under an id of its own.
      if (!isHttpError(err) || err.status !== 409) throw err;
      receipt = await submit(`${commandId}:${randomUUID()}`);
    }
    if (receipt.accepted) this.d.kickCommands();
  }

  outcome(runId: string): RunOutcome | null {
    const run = this.d.load(runId);
    return run ? this.outcomeOf(run) : null;
  }

  /** The outcome of a run whose state the caller holds (a run that just ended). */
  outcomeOf(run: RunState): RunOutcome {
    const ended = run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
    const root = run.root_run_id === run.run_id ? run : this.d.load(run.root_run_id);
    return {
      run_id: run.run_id,
      account: run.account,
      session_id: run.session_id,
      status: run.status,
      output: run.status === 'completed' ? run.output : null,
      error: run.error,
      created_at: run.created_at,
      updated_at: run.updated_at,
      wait: ended ? null : this.personWait(run),
      workspace_root: workspaceOf(this.d.workspaces, root)?.path ?? null,
    };
  }

  *legacySchedules(account: string): Generator<LegacySchedule> {
    for (const runId of this.d.runs.scheduleRootIdsNewestFirst(account)) {
      const run = this.d.load(runId);
      if (!run || run.account !== account || run.builtin !== 'scheduler') continue;
      const meta = (run.vars._meta as { schedule?: ScheduleMeta } | undefined)?.schedule;
      if (!meta) continue;
      const state = run.vars._schedule as { last_child?: string } | undefined;
      const childIds = [...this.d.runs.childIds(runId)];
      yield {
        run_id: run.run_id,
        status: run.status,
        paused: run.paused,
        session_id: run.session_id,
        archived_at: run.session_id ? this.d.archivedAt(account, run.session_id) : null,
        created_at: run.created_at,
        updated_at: run.updated_at,
        schedule: { start_at: meta.start_at, interval: meta.interval, repeat_count: meta.repeat_count, repeat_until: meta.repeat_until, target_workflow_id: meta.target_workflow_id, target_flow_id: meta.target_flow_id },
        wait_until: run.status === 'waiting' && run.waiting?.reason === 'until' ? run.waiting.until : null,
        children: childIds.length,
        last_child: this.newestChild(run, state?.last_child, childIds),
      };
    }
  }

  /** The child being waited on, else the one the schedule recorded last, else (older schedules) the newest by creation. */
  private newestChild(root: RunState, recorded: string | undefined, childIds: string[]): RunOutcome | null {
    const waitedOn = root.status === 'waiting' && root.waiting?.reason === 'subworkflow' ? root.waiting.details?.sub_run_id : undefined;
    for (const id of [waitedOn, recorded]) {
      const child = typeof id === 'string' ? this.d.load(id) : undefined;
      if (child) return this.outcomeOf(child);
    }
    let newest: RunState | undefined;
    for (const id of childIds) {
      const child = this.d.load(id);
      if (child && (!newest || child.created_at > newest.created_at)) newest = child;
    }
    return newest ? this.outcomeOf(newest) : null;
  }

  executesRuns(): boolean {
    return this.d.executing.active;
  }

  whenExecuting(listener: () => void): void {
    this.d.executing.whenActive(listener);
  }

  /**
   * The wait a person (or an outside event) must end, in the run or a run below it, breadth first:
   * ask_user and event waits. A pause, a timer and a parent waiting on its child are no one's to
   * answer; an `on_event` listener run waits for events all its life, so it is not one either.
   */
  private personWait(run: RunState): RunOutcome['wait'] {
    const tree = [run, ...this.d.runs.descendants(run.run_id).map((r) => this.d.load(r.run_id) ?? r)];
    for (const r of tree) {
      const w = r.waiting;
      if (r.status !== 'waiting' || !w || isListenerRun(r)) continue;
      if (w.reason !== 'user' && w.reason !== 'event') continue;
      const kind = typeof w.details?.kind === 'string' ? w.details.kind : w.reason === 'user' ? 'ask_user' : 'event';
      if (kind === 'pause') continue;
      return { run_id: r.run_id, wait_key: w.wait_key, kind, reason: w.reason, prompt: w.prompt, choices: w.choices };
    }
    return null;
  }
}

/** A launch as the start request it stands for. */
function startBodyOf(target: LaunchTarget, inputData: Record<string, unknown>, sessionId: string | null): StartBody {
  const body: StartBody = { input_data: inputData };
  if (target.bundle_id !== undefined) body.bundle_id = target.bundle_id;
  if (target.bundle_version !== undefined) body.bundle_version = target.bundle_version;
  if (target.flow_id !== undefined) body.flow_id = target.flow_id;
  if (target.interface !== undefined) body.interface = target.interface;
  if (target.registry_scope !== undefined) body.registry_scope = target.registry_scope;
  if (sessionId !== null) body.session_id = sessionId;
  return body;
}

/** A launch's own history window: a positive whole number of tokens, else the setting's. */
function historyWindow(maxTokens: number | undefined): { historyMaxTokens: number } | null {
  return typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens > 0 ? { historyMaxTokens: maxTokens } : null;
}
