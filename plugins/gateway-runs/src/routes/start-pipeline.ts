/**
 * The one way a root run starts (`POST /runs/start` and the `runs.launcher` token): the workflow
 * resolved, the start checks, the active-run cap, history replay, the preparers, the admission
 * with the workspace and the stored run, the docs mark and the runner's kick — in that order, so a
 * refused start costs and stores nothing.
 */
import { conflict, type AuthService, type Logger, type Principal } from '@keel/plugin-sdk';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import type { RunHooksRegistry, StartPreparation } from '../extensions/run-hooks.js';
import { applyTags, tagsRefusal } from '../extensions/launch-tags.js';
import type { LaunchTags } from '../extensions/run-launcher.js';
import { eventListenerNodes, type CompiledFlow } from '../flow/compile-flow.js';
import type { RunState } from '../runtime/run-state.js';
import type { RunStates } from '../runtime/run-states.js';
import type { SessionHistory } from '../sessions/session-history.js';
import { SessionKinds } from '../sessions/session-kinds.js';
import type { ActiveRunCap } from './active-run-cap.js';
import { newRootRun, resolveStart, type StartBody, type StartContext, type StartResolution } from './start-run.js';
import { createWithWorkspace, type WorkspaceDoor } from './start-workspace.js';

export interface StartPipelineDeps {
  /** The runs' current states, and how a run is created. */
  runtime: Pick<RunStates, 'load'> & { createRun(run: RunState, flow?: CompiledFlow): Promise<void> };
  start: StartContext;
  auth: Pick<AuthService, 'isAdmin'>;
  /** `limits.maxActiveRunsPerAccount`: a start past it answers 429. */
  activeRuns: ActiveRunCap;
  /** The `agents.streaming_default` setting, read at each start (a saved value wins over the config's). */
  streamingDefault(): boolean;
  kick(runId: string): void;
  /** Other plugins' start checks and preparers (`runs.hooks`). */
  hooks: Pick<RunHooksRegistry, 'checkStart' | 'prepareStart'>;
  /** Resolves and records each new root run's workspace (`workspaces.service`). */
  workspaces: WorkspaceService;
  /** Session purpose marks: a `kind: docs` start or a `docs-qa` run marks its session docs. */
  sessionKinds: SessionKinds;
  /** Seeds `context.messages` from the session's turns when a start asks (`use_session_history`). */
  history: Pick<SessionHistory, 'seed'>;
  log: Logger;
}

export interface StartOptions {
  /** The run id to use (a launcher's deterministic id); a fresh one otherwise. */
  runId?: string;
  /** How `GET /runs` attributes the run (automations); checked by the caller. */
  tags?: LaunchTags;
  /** The start came through `runs.launcher` (told to start checks and preparers). */
  launched?: boolean;
  /** What the workspace resolution does with a choice it cannot honour: refuse (an HTTP door, 400) or clamp. */
  workspaceDoor?: WorkspaceDoor;
  /** The history window of this start in estimated tokens (a launch's `historyMaxTokens`); default: the setting. */
  historyMaxTokens?: number;
}

export interface StartedRun {
  run: RunState;
  resolution: StartResolution;
}

export class StartPipeline {
  constructor(private readonly d: StartPipelineDeps) {}

  /** The workflow a start would run; throws the start's 400/404/409. */
  resolve(body: StartBody, principal: Principal): StartResolution {
    return resolveStart(body, principal, this.d.start);
  }

  async start(body: StartBody, principal: Principal, options: StartOptions = {}): Promise<StartedRun> {
    const { d } = this;
    const resolution = this.resolve(body, principal);
    const run = newRootRun(body, principal.account, resolution, d.streamingDefault(), options.runId);
    const launch = options.launched ? { launched: true } : {};
    const sessionId = body.session_id ?? null;
    await d.hooks.checkStart({ principal, sessionId, inputData: run.input_data, body, ...launch, ...(options.tags ? { tags: { ...options.tags } } : {}) });
    // Each `on_event` node of the flow starts a listener run with it (RN §7.2), counted against the account's listener cap.
    const flow = resolution.bundle.flows.get(run.flow_id);
    const listeners = flow ? eventListenerNodes(flow).length : 0;
    // A start past the cap is refused before history replay and the preparers cost anything.
    d.activeRuns.refuseIfFull(principal, listeners);
    d.history.seed({ account: principal.account, sessionId, inputData: run.input_data, vars: run.vars, ...(options.historyMaxTokens !== undefined ? { maxTokens: options.historyMaxTokens } : {}) });
    const tags: LaunchTags = { ...(options.tags ?? {}) };
    const preparation: StartPreparation = { principal, sessionId, runId: run.run_id, inputData: run.input_data, vars: run.vars, tags, ...launch };
    await d.hooks.prepareStart(preparation);
    // A preparer's tags are checked as a launch's are; wrong ones never block the start.
    const refusal = tagsRefusal(tags);
    if (refusal === null) applyTags(run, tags);
    else d.log.warn('a start preparer set tags the run cannot carry; the run starts without them', { run_id: run.run_id, reason: refusal });
    run.started_by_admin = d.auth.isAdmin(principal);
    // Inside the admission: a start refused for too many runs leaves no workspace record or folder behind.
    await d.activeRuns.admit(principal, async () => {
      // A given id is checked again here: its workspace record must never be overwritten by a second start.
      if (options.runId !== undefined && d.runtime.load(options.runId)) throw conflict(`Run '${options.runId}' already exists; a start with a given run id never replaces a run.`, { code: 'run_exists' });
      await createWithWorkspace(d.workspaces, body, run, run.started_by_admin === true, preparation.workspace ?? run.input_data.workspace, options.workspaceDoor ?? 'refuse', () => d.runtime.createRun(run, run.workflow_policy ? undefined : flow));
    }, listeners);
    if (SessionKinds.marks(run) && run.session_id) await d.sessionKinds.markDocs(run.account, run.session_id, `${principal.tenant}:${principal.account}`);
    d.kick(run.run_id);
    return { run, resolution };
  }
}
