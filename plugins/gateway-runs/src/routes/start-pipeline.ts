/**
 * The one way a root run starts (`POST /runs/start` and the `runs.launcher` token): the workflow
 * resolved, the start checks, the active-run cap, history replay, the preparers, the admission
 * with the workspace and the stored run, the docs mark and the runner's kick — in that order, so a
 * refused start costs and stores nothing.
 */
import { conflict, type AuthService, type Principal } from '@keel/plugin-sdk';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import type { RunHooksRegistry, StartPreparation } from '../extensions/run-hooks.js';
import type { LaunchTags } from '../extensions/run-launcher.js';
import { eventListenerNodes } from '../flow/compile-flow.js';
import type { RunState } from '../runtime/run-state.js';
import type { RunStates } from '../runtime/run-states.js';
import type { SessionHistory } from '../sessions/session-history.js';
import { SessionKinds } from '../sessions/session-kinds.js';
import type { ActiveRunCap } from './active-run-cap.js';
import { newRootRun, resolveStart, type StartBody, type StartContext, type StartResolution } from './start-run.js';
import { resolveStartWorkspace, type WorkspaceDoor } from './start-workspace.js';

export interface StartPipelineDeps {
  /** The runs' current states, and how a run is created. */
  runtime: Pick<RunStates, 'load' | 'createRun'>;
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
}

export interface StartOptions {
  /** The run id to use (a launcher's deterministic id); a fresh one otherwise. */
  runId?: string;
  /** How `GET /runs` attributes the run (automations). */
  tags?: LaunchTags;
  /** What the workspace resolution does with a choice it cannot honour: refuse (an HTTP door, 400) or clamp. */
  workspaceDoor?: WorkspaceDoor;
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
    if (options.tags) tag(run, options.tags);
    const sessionId = body.session_id ?? null;
    await d.hooks.checkStart({ principal, sessionId, inputData: run.input_data, body });
    // Each `on_event` node of the flow starts a listener run with it (RN §7.2), counted against the account's listener cap.
    const flow = resolution.bundle.flows.get(run.flow_id);
    const listeners = flow ? eventListenerNodes(flow).length : 0;
    // A start past the cap is refused before history replay and the preparers cost anything.
    d.activeRuns.refuseIfFull(principal, listeners);
    d.history.seed({ account: principal.account, sessionId, inputData: run.input_data, vars: run.vars });
    const preparation: StartPreparation = { principal, sessionId, runId: run.run_id, inputData: run.input_data, vars: run.vars };
    await d.hooks.prepareStart(preparation);
    // A preparer may attribute the run (a discussion re-stamps its later turns).
    if (preparation.tags) tag(run, preparation.tags);
    run.started_by_admin = d.auth.isAdmin(principal);
    // Inside the admission: a start refused for too many runs leaves no workspace record or folder behind.
    await d.activeRuns.admit(principal, async () => {
      // A given id is checked again here: its workspace record must never be overwritten by a second start.
      if (options.runId !== undefined && d.runtime.load(options.runId)) throw conflict(`Run '${options.runId}' already exists; a start with a given run id never replaces a run.`, { code: 'run_exists' });
      await resolveStartWorkspace(d.workspaces, body, run, run.started_by_admin === true, oneOffLayer(preparation.workspace ?? run.input_data.workspace), options.workspaceDoor);
      await d.runtime.createRun(run);
    }, listeners);
    if (SessionKinds.marks(run) && run.session_id) await d.sessionKinds.markDocs(run.account, run.session_id, `${principal.tenant}:${principal.account}`);
    d.kick(run.run_id);
    return { run, resolution };
  }
}

/** The attribution `GET /runs` lists (RunState's optional fields); only the given ones are set. */
function tag(run: RunState, tags: LaunchTags): void {
  if (tags.session_kind !== undefined) run.session_kind = tags.session_kind;
  if (tags.automation_id !== undefined) run.automation_id = tags.automation_id;
  if (tags.role !== undefined) run.role = tags.role;
  if (tags.occurrence_index !== undefined) run.occurrence_index = tags.occurrence_index;
}

/**
 * The run's one-off workspace layer: `{configured: false}` (what an automation saved with the
 * defaults stores) is none, so the run follows its session, account and gateway policy as they are
 * at this start (seed §4.5).
 */
function oneOffLayer(workspace: unknown): unknown {
  const unconfigured = workspace !== null && typeof workspace === 'object' && (workspace as { configured?: unknown }).configured === false;
  return unconfigured ? undefined : workspace;
}
