/** Runs: start, read, inputs; and commands (the listing is run-listing.ts). Another account's run answers 404. */
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { badRequest, conflict, forbidden, notFound, reply, route, defineSchema, KEY_ID_MAX_LENGTH, type AuthService, type Principal } from '@keel/plugin-sdk';
import { BundleConflict, type BundleRegistry } from '../bundles/bundle-registry.js';
import { bundleRefusal } from './bundle-refusal.js';
import type { LedgerStore } from '@keel/plugin-ledger';
import type { CommandStore } from '../runner/command-store.js';
import { PAYLOAD_NOT_AN_OBJECT, resumeRefusal } from '../runner/resume-rules.js';
import { runView, type RunState } from '../runtime/run-state.js';
import type { RunStates } from '../runtime/run-states.js';
import type { RunStore } from '../runtime/run-store.js';
import type { ActiveRunCap } from './active-run-cap.js';
import { agentDefaultMarks, agentDefaultsView } from './agent-defaults.js';
import { bundleListResponse } from './listing-responses.js';
import { newScheduledRun, scheduleBody, scheduleRunResponse } from './schedule-run.js';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import type { RunHooksRegistry } from '../extensions/run-hooks.js';
import { resolveStartWorkspace } from './start-workspace.js';
import { SessionKinds } from '../sessions/session-kinds.js';
import { startBody, startRunResponse, type StartContext } from './start-run.js';
import type { StartPipeline } from './start-pipeline.js';
import type { RunSettledWaits } from './run-settled-wait.js';

const runParams = defineSchema({ type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
/** The run command types of `POST /commands` (seed 000 §4.4); other plugins' types reach their command targets. */
export const COMMAND_TYPES = ['pause', 'resume', 'cancel', 'conclude', 'emit_event', 'update_schedule', 'compact_memory', 'inject_guidance'];
const commandBody = defineSchema({
  type: 'object',
  required: ['run_id', 'type'],
  properties: {
    command_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
    run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    type: { type: 'string', minLength: 1 },
    payload: { type: 'object', default: {} },
    ts: { type: 'string' },
    client_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
  },
  examples: [{ run_id: '<run_id from POST /runs/start>', type: 'pause', payload: {} }],
});
const uploadBody = defineSchema({
  type: 'object',
  properties: { overwrite: { type: 'boolean', default: false }, reload: { type: 'boolean', default: true }, scope: { enum: ['shared', 'private'] } },
});

export interface RunsRoutesDeps {
  runs: RunStore;
  ledger: LedgerStore;
  /** The runs' current states, and how a (scheduled) run is created. */
  runtime: Pick<RunStates, 'load' | 'createRun'>;
  commands: CommandStore;
  bundles: BundleRegistry;
  start: StartContext;
  auth: AuthService;
  /** `limits.maxActiveRunsPerAccount`: a start past it answers 429. */
  activeRuns: ActiveRunCap;
  runnerWarning(): string | null;
  kick(runId: string): void;
  kickCommands(): void;
  /** Other plugins' start checks (`runs.hooks`), run before anything is stored; their claims on commands. */
  hooks: Pick<RunHooksRegistry, 'checkStart' | 'claimCommand'>;
  /** Resolves and records each new root run's workspace (`workspaces.service`). */
  workspaces: WorkspaceService;
  /** Session purpose marks: a `kind: docs` start or a `docs-qa` run marks its session docs. */
  sessionKinds: SessionKinds;
  /** How a root run starts (shared with the `runs.launcher` token). */
  pipeline: StartPipeline;
  /** `wait` on `POST /runs/start`: the process's waiting starts and their limits. */
  waits: RunSettledWaits;
}

export function runsRoutes(d: RunsRoutesDeps) {
  const owned = (principal: Principal, runId: string): RunState => {
    const run = d.runtime.load(runId);
    if (!run || run.account !== principal.account) throw notFound(`Run '${runId}' not found.`);
    return run;
  };
  /**
   * A resume that would change nothing is refused here with the reason (resume-rules.ts), unless a
   * command for the same run tree is still queued: that one may pause or wake the run first.
   */
  const refuseIdleResume = (run: RunState, payload: Record<string, unknown>): void => {
    const inner = payload.payload;
    if (inner !== undefined && (inner === null || typeof inner !== 'object' || Array.isArray(inner))) {
      throw badRequest(PAYLOAD_NOT_AN_OBJECT, { code: 'invalid_request', field: 'body.payload.payload' });
    }
    const tree = [run, ...d.runs.descendants(run.run_id).map((r) => d.runtime.load(r.run_id) ?? r)];
    const refusal = resumeRefusal(tree, payload);
    if (refusal && !d.commands.pendingFor(new Set(tree.map((r) => r.run_id)))) throw conflict({ reason_code: 'invalid_state', message: refusal });
  };
  return [
    route({
      method: 'POST',
      path: '/runs/start',
      tags: ['runs'],
      summary: 'Start a run of a bundle entrypoint, or of the default workflow of an interface (`flow_id: @default`); with `wait`, answer once the run has ended (or waits for input) with its record',
      body: startBody,
      responses: { 200: { schema: startRunResponse } },
      handler: async ({ body, principal, signal }) => {
        // A wait's place is taken before the run starts: a refused wait (400, 503) starts nothing.
        const place = body.wait ? d.waits.admit(body.wait) : null;
        try {
          const { run, resolution } = await d.pipeline.start(body, principal);
          const answer = { run_id: run.run_id, runner_warning: d.runnerWarning(), resolved_workflow: resolution.resolved };
          if (!place) return answer;
          // Only the run this request started: a wait never tells about any other run.
          const settled = await place.settle(run.run_id, signal);
          return { ...answer, run: runView(settled.run), wait: { until: place.until, reached: settled.reached } };
        } finally {
          place?.release();
        }
      },
    }),
    route({
      method: 'POST',
      path: '/runs/schedule',
      tags: ['runs'],
      summary: 'Schedule a flow: a parent run launches it at start_at, then every interval (repeat_count / repeat_until bound it)',
      body: scheduleBody,
      responses: { 200: { schema: scheduleRunResponse } },
      handler: async ({ body, principal }) => {
        // The scheduled parent runs until its schedule ends: nothing a request could wait for.
        if ((body as Record<string, unknown>).wait !== undefined) {
          throw badRequest('wait is not accepted by POST /runs/schedule (a scheduled run lasts as long as its schedule); start the run with POST /runs/start to wait for it, or follow the child runs.', { code: 'invalid_request', field: 'body.wait' });
        }
        const resolution = d.pipeline.resolve(body, principal);
        const run = newScheduledRun(body, principal.account, resolution);
        await d.hooks.checkStart({ principal, sessionId: body.session_id ?? null, inputData: run.input_data, body });
        run.started_by_admin = d.auth.isAdmin(principal);
        const inputs = (run.input_data.input_data ?? {}) as Record<string, unknown>;
        await d.activeRuns.admit(principal, async () => {
          await resolveStartWorkspace(d.workspaces, body, run, run.started_by_admin === true, body.workspace ?? inputs.workspace);
          await d.runtime.createRun(run);
        });
        // A schedule of docs questions (`kind: docs`, or the docs-qa bundle) marks its session as a start does.
        if (body.session_id && SessionKinds.marks({ kind: body.kind === 'docs' ? 'docs' : 'conversation', bundle_id: resolution.resolved.bundle_id })) {
          await d.sessionKinds.markDocs(principal.account, body.session_id, `${principal.tenant}:${principal.account}`);
        }
        d.kick(run.run_id);
        return { run_id: run.run_id, runner_warning: d.runnerWarning(), resolved_workflow: resolution.resolved, schedule: (run.vars._meta as { schedule: unknown }).schedule };
      },
    }),
    route({ method: 'GET', path: '/runs/:run_id', tags: ['runs'], summary: 'A run record (never its vars)', params: runParams, handler: ({ params, principal }) => runView(owned(principal, params.run_id)) }),
    route({ method: 'GET', path: '/runs/:run_id/input_data', tags: ['runs'], summary: 'The inputs the run started with (with workflow_selection)', params: runParams, handler: ({ params, principal }) => owned(principal, params.run_id).input_data }),
    route({
      method: 'POST',
      path: '/commands',
      tags: ['runs'],
      summary: 'Queue a command for the runner (idempotent by command_id): pause, resume, cancel, emit_event, ...',
      body: commandBody,
      handler: async ({ body, principal }) => {
        const commandId = body.command_id?.trim() || randomUUID();
        // Another plugin's types (automation.*) and targets (an automation id) are its own: asked first, its answer is the response.
        const claimed = await d.hooks.claimCommand({ command_id: commandId, run_id: body.run_id, type: body.type, payload: body.payload, client_id: body.client_id ?? null, command_id_given: Boolean(body.command_id?.trim()) }, principal);
        if (claimed) return claimed.answer;
        if (!COMMAND_TYPES.includes(body.type)) throw badRequest(`Unknown command type '${body.type}'; use one of ${COMMAND_TYPES.join(', ')}.`, { code: 'invalid_request', field: 'body.type' });
        // emit_event too: the runner delivers the event in the named run's account.
        const target = owned(principal, body.run_id);
        if (body.type === 'resume' && d.commands.seqOf(commandId) === undefined) refuseIdleResume(target, body.payload);
        const receipt = await d.commands.submit({
          command_id: commandId,
          run_id: body.run_id,
          type: body.type,
          payload: body.payload,
          ts: new Date().toISOString(),
          client_id: body.client_id ?? null,
          account: principal.account,
        });
        if (receipt.accepted) d.kickCommands();
        return receipt;
      },
    }),
    route({
      method: 'GET',
      path: '/bundles',
      tags: ['bundles'],
      summary: 'Bundles the caller can run, with source and description',
      responses: { 200: { schema: bundleListResponse } },
      handler: ({ principal }) => {
        const view = agentDefaultsView(principal, d.start);
        const items = d.bundles.list(principal.account).map((e) => {
          const m = e.bundle.manifest;
          const def = m.default_entrypoint ?? m.entrypoints[0]!.flow_id;
          return {
            bundle_id: m.bundle_id,
            bundle_version: m.bundle_version,
            source: e.source,
            scope: e.scope,
            description: m.entrypoints.find((x) => x.flow_id === def)?.description ?? '',
            default_entrypoint: m.default_entrypoint,
            entrypoints: m.entrypoints.map((ep) => ({ ...ep, workflow_id: `${m.bundle_id}@${m.bundle_version}:${ep.flow_id}`, ...agentDefaultMarks(view, 'private', m.bundle_id, m.bundle_version, ep.flow_id) })),
            created_at: m.created_at,
          };
        });
        return { items, ...view };
      },
    }),
    route({
      method: 'POST',
      path: '/bundles/upload',
      tags: ['bundles'],
      summary: 'Upload a .flow bundle (multipart `file`, `overwrite`); the shared directory needs an admin',
      bodyKind: 'multipart',
      body: uploadBody,
      handler: async ({ body, files, principal }) => {
        const file = files.file?.[0];
        if (!file) throw badRequest('Send the bundle as the multipart field `file`.', { code: 'invalid_request', field: 'body.file' });
        const scope = body.scope ?? (d.auth.isAdmin(principal) ? 'shared' : 'private');
        if (scope === 'shared' && !d.auth.isAdmin(principal)) throw forbidden('Writing the shared bundle directory needs an admin principal.');
        try {
          const { entry, replaced } = await d.bundles.install(new Uint8Array(await readFile(file.filepath)), scope, principal.account, body.overwrite ?? false);
          const m = entry.bundle.manifest;
          return reply(201, { bundle_id: m.bundle_id, bundle_version: m.bundle_version, scope, replaced, entrypoints: m.entrypoints });
        } catch (err) {
          const refusal = bundleRefusal(err);
          if (refusal) throw refusal;
          if (err instanceof BundleConflict) throw conflict(err.message, { code: 'bundle_exists' });
          throw err;
        }
      },
    }),
  ];
}
