import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { conflict, defineSchema, definePlugin, route } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin, runHooksToken, runLauncherToken, type EmittedEvent, type LaunchRequest, type LaunchTags, type RunEndedListener } from '@keel/plugin-gateway-runs';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

/**
 * The `runs.launcher` token and the `runs.hooks` call sites of issue 15, through a small plugin
 * that depends on them (as the automations plugin does): its routes launch, resolve, cancel and
 * read runs as the calling account; what the hooks told it is kept here.
 */

const ended: Array<Parameters<RunEndedListener>[0] & { seen_status: string | null }> = [];
const emitted: EmittedEvent[] = [];
let executing = 0;
const checked: Array<{ sessionId: string | null; launched: boolean | null; tags: LaunchTags | null }> = [];

const probePlugin = definePlugin({
  id: 'launcher-probe',
  version: '0.1.0',
  sdk: '^1.0.0',
  defaultPrefix: '/api/probe',
  deps: { launcher: runLauncherToken, hooks: runHooksToken },
  setup({ deps }) {
    const { launcher, hooks } = deps;
    hooks.onRunEnded((run) => {
      // What the launcher reads at that moment: the end is already durable.
      ended.push({ ...run, seen_status: launcher.outcome(run.run_id)?.status ?? null });
    });
    hooks.onRunEnded(() => {
      throw new Error('a failing listener never fails the run');
    });
    hooks.addStartCheck(async ({ launched, tags, sessionId }) => {
      checked.push({ sessionId, launched: launched ?? null, tags: tags ?? null });
    });
    hooks.addStartPreparer(({ sessionId, tags }) => {
      // A later turn of a discussion session is attributed as the session is (what the discuss helper does).
      if (sessionId?.startsWith('discussion-session:') && tags) Object.assign(tags, { session_kind: 'discussion', automation_id: 'auto-d', role: 'discussion' });
      if (sessionId === 'bad-tags' && tags) Object.assign(tags, { session_kind: 'chat', occurrence_index: -2 });
    });
    hooks.onEventEmitted((event) => {
      emitted.push(event);
    });
    hooks.addCommandTarget((command, principal) => {
      if (command.type.startsWith('automation.')) return { claimed_by: 'launcher-probe', command_id: command.command_id, type: command.type, account: principal.account, payload: command.payload };
      if (command.run_id.startsWith('auto-')) throw conflict({ reason_code: 'invalid_state', message: `Run commands cannot be sent to automation '${command.run_id}'.` });
      return undefined;
    });
    launcher.whenExecuting(() => {
      executing++;
    });
    type Body = Omit<LaunchRequest, 'principal'> & { command_id?: string; reason?: string | null };
    const body = defineSchema({ type: 'object' });
    return {
      routes: [
        route({ method: 'POST', path: '/launch', body, handler: async ({ body, principal }) => launcher.launch({ ...(body as Body), principal }) }),
        route({ method: 'POST', path: '/resolve', body, handler: ({ body, principal }) => launcher.resolve(principal, (body as Body).target) }),
        route({
          method: 'POST',
          path: '/cancel',
          body,
          handler: async ({ body, principal }) => {
            const b = body as Body;
            await launcher.cancel(principal.account, b.runId, b.command_id!, b.reason ?? null);
            return { ok: true };
          },
        }),
        route({ method: 'GET', path: '/outcome/:run_id', handler: ({ params }) => ({ outcome: launcher.outcome((params as { run_id: string }).run_id) }) }),
        route({ method: 'GET', path: '/executing', handler: () => ({ executes: launcher.executesRuns(), told: executing }) }),
      ],
    };
  },
});

const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};
const childFlow = { id: 'child', nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: [] })], edges: edges('start -> end') };
const parentFlow = {
  id: 'parent',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'child' } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> sub', 'sub -> end', 'sub.output -> end.response'),
};
const askBelowFlow = {
  id: 'askbelow',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'ask' } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> sub', 'sub -> end', 'sub.output -> end.response'),
};

interface Row { run_id: string; session_kind: string | null; automation_id: string | null; role: string | null; occurrence_index: number | null; parent_run_id: string | null }
interface Outcome { run_id: string; status: string; output: Record<string, unknown> | null; wait: { run_id: string; kind: string; prompt: string | null; wait_key: string | null } | null; workspace_root: string | null }

describe('runs.launcher and the runs.hooks call sites (issue 15)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let carol = '';
  const folder = tempDir();

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxActiveRunsPerAccount: 2 } } }, probePlugin] });
    bob = await createAccount(k, 'bob');
    carol = await createAccount(k, 'carol');
    for (const token of [bob, carol]) {
      await uploadBundleAs(k, token, 'echo', echoFlow);
      await uploadBundleAs(k, token, 'ask', askUserFlow());
    }
    const parent = bundle('parent', '1.0.0', parentFlow, [childFlow]);
    const askBelow = bundle('askbelow', '1.0.0', askBelowFlow, [askUserFlow()]);
    for (const [name, bytes] of [['parent', parent], ['askbelow', askBelow]] as const) {
      const body = multipart({}, { name: `${name}.flow`, bytes });
      const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(201);
    }
  });
  after(async () => {
    await k?.stop();
    folder.remove();
  });

  const launch = (token: string, request: Record<string, unknown>) => k.inject({ method: 'POST', url: '/api/probe/launch', token, payload: request });
  const runOf = async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}`, token })).json<RunRecord>();
  const endOf = (token: string, id: string) => until(() => runOf(token, id), { what: `run ${id} to end`, ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status), deadline: 60_000 });
  const outcomeOf = async (token: string, id: string) => (await k.inject({ url: `/api/probe/outcome/${id}`, token })).json<{ outcome: Outcome | null }>().outcome;

  it('tells a plugin that this process executes runs', async () => {
    const res = (await k.inject({ url: '/api/probe/executing', token: bob })).json<{ executes: boolean; told: number }>();
    expect(res).to.deep.equal({ executes: true, told: 1 });
  });

  it('launches a root run with the given id, listed in GET /runs with its tags, as a start would', async () => {
    const runId = crypto.randomUUID();
    const res = await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'hello' }, runId, sessionId: 'auto-session-1', tags: { session_kind: 'occurrence', automation_id: 'auto-1', role: 'occurrence', occurrence_index: 3 } });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.include({ run_id: runId, created: true });
    expect(res.json<{ resolved_workflow: { workflow_id: string; source: string } }>().resolved_workflow).to.include({ workflow_id: 'echo@1.0.0:echo', source: 'client' });
    const run = await endOf(bob, runId);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.include({ response: 'hello' });
    const rows = (await k.inject({ url: '/api/gateway/runs?session_id=auto-session-1', token: bob })).json<{ items: Row[] }>().items;
    expect(rows.map((r) => ({ run_id: r.run_id, session_kind: r.session_kind, automation_id: r.automation_id, role: r.role, occurrence_index: r.occurrence_index }))).to.deep.equal([
      { run_id: runId, session_kind: 'occurrence', automation_id: 'auto-1', role: 'occurrence', occurrence_index: 3 },
    ]);
    const input = (await k.inject({ url: `/api/gateway/runs/${runId}/input_data`, token: bob })).json<Record<string, unknown>>();
    expect(input).to.deep.include({ prompt: 'hello' });
    expect(input.workflow_selection).to.include({ workflow_id: 'echo@1.0.0:echo' });
    // The run's owner only: another account does not see it.
    expect((await k.inject({ url: `/api/gateway/runs/${runId}`, token: carol })).statusCode).to.equal(404);
  });

  it('starts a run id once: the same launch again answers the run with created: false and starts nothing', async () => {
    const runId = crypto.randomUUID();
    const request = { target: { bundle_id: 'echo' }, inputData: { prompt: 'once' }, runId, sessionId: 'twice-session' };
    const [a, b] = await Promise.all([launch(bob, request), launch(bob, request)]);
    expect([a.statusCode, b.statusCode], a.body + b.body).to.deep.equal([200, 200]);
    expect([a.json<{ created: boolean }>().created, b.json<{ created: boolean }>().created].sort()).to.deep.equal([false, true]);
    await endOf(bob, runId);
    const again = await launch(bob, { ...request, inputData: { prompt: 'other inputs' } });
    expect(again.statusCode, again.body).to.equal(200);
    expect(again.json()).to.deep.include({ run_id: runId, created: false });
    expect(again.json<{ resolved_workflow: { workflow_id: string } }>().resolved_workflow.workflow_id).to.equal('echo@1.0.0:echo');
    const rows = (await k.inject({ url: '/api/gateway/runs?session_id=twice-session', token: bob })).json<{ items: Row[] }>().items;
    expect(rows.map((r) => r.run_id)).to.deep.equal([runId]);
    expect((await runOf(bob, runId)).output).to.deep.include({ response: 'once' });
  });

  it('tells start checks a launch from a start, and lets a preparer tag a run (tags it cannot carry are left out)', async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: 'checked-launch', tags: { session_kind: 'occurrence', occurrence_index: 0 } })).statusCode).to.equal(200);
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', session_id: 'checked-start', input_data: {} } });
    expect(started.statusCode).to.equal(200);
    expect(checked.filter((c) => c.sessionId?.startsWith('checked-'))).to.deep.equal([
      { sessionId: 'checked-launch', launched: true, tags: { session_kind: 'occurrence', occurrence_index: 0 } },
      { sessionId: 'checked-start', launched: null, tags: null },
    ]);
    const turn = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', session_id: 'discussion-session:r1', input_data: { prompt: 'why?' } } });
    const bad = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', session_id: 'bad-tags', input_data: {} } });
    expect([turn.statusCode, bad.statusCode]).to.deep.equal([200, 200]);
    const rowOf = async (sessionId: string) => (await k.inject({ url: `/api/gateway/runs?session_id=${encodeURIComponent(sessionId)}`, token: bob })).json<{ items: Row[] }>().items[0]!;
    expect(await rowOf('discussion-session:r1')).to.deep.include({ session_kind: 'discussion', automation_id: 'auto-d', role: 'discussion', occurrence_index: null });
    expect(await rowOf('bad-tags')).to.deep.include({ session_kind: 'chat', automation_id: null, role: null, occurrence_index: null });
  });

  it("refuses a run id another account's run holds, and leaves that run alone", async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'mine' }, runId, sessionId: null })).statusCode).to.equal(200);
    const res = await launch(carol, { target: { bundle_id: 'echo' }, inputData: { prompt: 'theirs' }, runId, sessionId: null });
    expect(res.statusCode, res.body).to.equal(409);
    expect(res.json()).to.deep.equal({ detail: { reason_code: 'run_exists', message: `Run id '${runId}' is taken by another run; launch under another id.` } });
    const run = await endOf(bob, runId);
    expect(run.output).to.deep.include({ response: 'mine' });
    expect((await k.inject({ url: `/api/gateway/runs/${runId}`, token: carol })).statusCode).to.equal(404);
  });

  it('replays session history on a launch that asks, and keeps a given transcript instead', async () => {
    const first = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', session_id: 'hist-session', input_data: { prompt: 'first turn' } } });
    expect(first.statusCode, first.body).to.equal(200);
    await endOf(bob, first.json<{ run_id: string }>().run_id);
    const seeded = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'second', use_session_history: true }, runId: seeded, sessionId: 'hist-session' })).statusCode).to.equal(200);
    const history = (await endOf(bob, seeded)) as RunRecord & { session_history: Record<string, unknown> | null };
    expect(history.session_history).to.deep.include({ seeded: 2, replayed_messages: 2 });
    const given = crypto.randomUUID();
    const transcript = [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'answer' }];
    expect((await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'third', use_session_history: true, context: { messages: transcript } }, runId: given, sessionId: 'hist-session' })).statusCode).to.equal(200);
    const kept = (await endOf(bob, given)) as RunRecord & { session_history: Record<string, unknown> | null };
    expect(kept.session_history).to.deep.include({ seeded: 0, skipped: 'client context.messages present' });
  });

  it('refuses a launch without a usable run id, or with tags GET /runs could not list', async () => {
    for (const runId of ['', ' ', 'x'.repeat(1000)]) {
      const res = await launch(bob, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: null });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { field: string } }>().detail.field).to.equal('runId');
    }
    for (const tags of [{ session_kind: 'chat' }, { occurrence_index: -1 }, { occurrence_index: 1.5 }, { automation_id: '' }, { role: 7 }]) {
      const runId = crypto.randomUUID();
      const res = await launch(bob, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: null, tags });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { field: string } }>().detail.field).to.equal('tags');
      expect((await k.inject({ url: `/api/gateway/runs/${runId}`, token: bob })).statusCode).to.equal(404);
    }
  });

  it('resolves targets as a start does, with its refusals', async () => {
    const ok = await k.inject({ method: 'POST', url: '/api/probe/resolve', token: bob, payload: { target: { bundle_id: 'echo' } } });
    expect(ok.statusCode, ok.body).to.equal(200);
    expect(ok.json()).to.deep.include({ workflow_id: 'echo@1.0.0:echo', bundle_id: 'echo', flow_id: 'echo', source: 'client', interface: null });
    const unknown = await k.inject({ method: 'POST', url: '/api/probe/resolve', token: bob, payload: { target: { bundle_id: 'nope' } } });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<{ detail: { message: string } }>().detail.message).to.equal("Bundle 'nope' is not installed.");
    const noInterface = await k.inject({ method: 'POST', url: '/api/probe/resolve', token: bob, payload: { target: { flow_id: '@default' } } });
    expect(noInterface.statusCode).to.equal(400);
    expect(noInterface.json<{ detail: { message: string } }>().detail.message).to.equal("flow_id '@default' needs an interface (for example abstractcode.agent.v1).");
    // Another account's private bundle is not there for this one.
    await uploadBundleAs(k, carol, 'carols', echoFlow);
    expect((await k.inject({ method: 'POST', url: '/api/probe/resolve', token: bob, payload: { target: { bundle_id: 'carols' } } })).statusCode).to.equal(404);
    // A launch refuses the same way and stores nothing.
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'nope' }, inputData: {}, runId, sessionId: null })).statusCode).to.equal(404);
    expect((await k.inject({ url: `/api/gateway/runs/${runId}`, token: bob })).statusCode).to.equal(404);
  });

  it('resolves the workspace at each launch: {configured: false} follows the account policy as it is then', async () => {
    const launchDefault = async () => {
      const runId = crypto.randomUUID();
      const res = await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'ws', workspace: { configured: false } }, runId, sessionId: null });
      expect(res.statusCode, res.body).to.equal(200);
      await endOf(bob, runId);
      const ws = (await k.inject({ url: `/api/gateway/runs/${runId}/workspace`, token: bob })).json<{ workspace_level: string; workspace_summary: string }>();
      return { workspace_level: ws.workspace_level, workspace_summary: ws.workspace_summary };
    };
    const first = await launchDefault();
    const shared = path.join(folder.dir, 'shared-notes');
    mkdirSync(shared, { recursive: true });
    const put = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/bob', token: k.adminToken, payload: { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: shared, mode: 'ro' }] } });
    expect(put.statusCode, put.body).to.equal(200);
    const second = await launchDefault();
    expect(first.workspace_summary).to.not.include(shared);
    expect(second.workspace_level).to.equal('account');
    expect(second.workspace_summary).to.include(shared);
    const reset = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/bob', token: k.adminToken, payload: { configured: false } });
    expect(reset.statusCode, reset.body).to.equal(200);
    const third = await launchDefault();
    expect(third).to.deep.equal(first);
  });

  it('clamps a stored one-off layer at launch (never more than a start could get), where POST /runs/start refuses it', async () => {
    const missing = path.join(folder.dir, 'gone-folder');
    const workspace = { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: missing, mode: 'rw' }] };
    const refused = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', input_data: { workspace } } });
    expect(refused.statusCode, refused.body).to.equal(400);
    expect(refused.json<{ detail: { reason: string } }>().detail.reason).to.equal('workspace_refused');
    const runId = crypto.randomUUID();
    const res = await launch(bob, { target: { bundle_id: 'echo' }, inputData: { prompt: 'clamped', workspace }, runId, sessionId: null });
    expect(res.statusCode, res.body).to.equal(200);
    await endOf(bob, runId);
    const ws = (await k.inject({ url: `/api/gateway/runs/${runId}/workspace`, token: bob })).json<{ workspace_level: string; workspace_clamped: Array<{ path: string; got: string | null }> }>();
    expect(ws.workspace_level).to.equal('run');
    expect(ws.workspace_clamped.map((c) => c.got)).to.deep.equal([null]);
  });

  it('applies the active-run cap: a launch past it is the 429 of a start, and nothing is stored', async () => {
    const held: string[] = [];
    for (let i = 0; i < 2; i++) {
      const runId = crypto.randomUUID();
      expect((await launch(carol, { target: { bundle_id: 'ask' }, inputData: {}, runId, sessionId: null })).statusCode).to.equal(200);
      held.push(runId);
    }
    const runId = crypto.randomUUID();
    const res = await launch(carol, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: null });
    expect(res.statusCode, res.body).to.equal(429);
    expect(res.json<{ detail: { reason_code: string; message: string } }>().detail.reason_code).to.equal('too_many_active_runs');
    expect(res.json<{ detail: { message: string } }>().detail.message).to.match(/^Account 'carol' already has 2 runs running or waiting/);
    expect((await k.inject({ url: `/api/gateway/runs/${runId}`, token: carol })).statusCode).to.equal(404);
    expect((await k.inject({ url: `/api/gateway/runs/${runId}/workspace`, token: carol })).statusCode).to.equal(404);
    for (const id of held) expect((await k.inject({ method: 'POST', url: '/api/probe/cancel', token: carol, payload: { runId: id, command_id: `free-${id}` } })).statusCode).to.equal(200);
    for (const id of held) expect((await endOf(carol, id)).status).to.equal('cancelled');
    expect((await launch(carol, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: null })).statusCode).to.equal(200);
  });

  it('reads the open person-wait of a run or a run below it, and cancels the whole tree idempotently', async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'askbelow' }, inputData: {}, runId, sessionId: 'ask-session' })).statusCode).to.equal(200);
    const waiting = await until(() => outcomeOf(bob, runId), { what: 'the child ask_user wait', ok: (o) => o?.wait !== null && o?.wait !== undefined });
    const child = (await k.inject({ url: `/api/gateway/runs?parent_run_id=${runId}`, token: bob })).json<{ items: Row[] }>().items;
    expect(child).to.have.length(1);
    expect(waiting).to.deep.include({ run_id: runId, status: 'waiting', output: null });
    expect(waiting!.wait).to.deep.include({ run_id: child[0]!.run_id, kind: 'ask_user', prompt: 'Your name?' });
    expect(waiting!.workspace_root).to.be.a('string');
    expect(waiting!.workspace_root).to.not.equal('');
    // Idempotent by command id: the second is a duplicate and changes nothing.
    for (let i = 0; i < 2; i++) expect((await k.inject({ method: 'POST', url: '/api/probe/cancel', token: bob, payload: { runId, command_id: `stop-${runId}`, reason: 'stop_current' } })).statusCode).to.equal(200);
    expect((await endOf(bob, runId)).status).to.equal('cancelled');
    expect((await endOf(bob, child[0]!.run_id)).status).to.equal('cancelled');
    const after = await outcomeOf(bob, runId);
    expect(after).to.deep.include({ status: 'cancelled', wait: null, output: null });
    // Another account cannot cancel it through the launcher (404), and an unknown run reads null.
    expect((await k.inject({ method: 'POST', url: '/api/probe/cancel', token: carol, payload: { runId, command_id: crypto.randomUUID() } })).statusCode).to.equal(404);
    expect(await outcomeOf(bob, crypto.randomUUID())).to.equal(null);
  });

  it("shows a root run's own ask_user wait, and none once it is answered", async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'ask' }, inputData: {}, runId, sessionId: null })).statusCode).to.equal(200);
    const waiting = await until(() => outcomeOf(bob, runId), { what: 'the ask_user wait', ok: (o) => o?.wait !== null && o?.wait !== undefined });
    expect(waiting!.wait).to.deep.include({ run_id: runId, kind: 'ask_user', prompt: 'Your name?' });
    const answer = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { run_id: runId, type: 'resume', payload: { payload: { response: 'Ada' } } } });
    expect(answer.statusCode, answer.body).to.equal(200);
    const done = await endOf(bob, runId);
    expect(done.status).to.equal('completed');
    expect(await outcomeOf(bob, runId)).to.deep.include({ status: 'completed', wait: null });
  });

  it('tells run-ended listeners once per root run end, with its tags, after the end is durable (never for child runs)', async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'parent' }, inputData: {}, runId, sessionId: null, tags: { session_kind: 'occurrence', automation_id: 'auto-9', role: 'occurrence', occurrence_index: 1 } })).statusCode).to.equal(200);
    await endOf(bob, runId);
    const children = (await k.inject({ url: `/api/gateway/runs?parent_run_id=${runId}`, token: bob })).json<{ items: Row[] }>().items;
    expect(children).to.have.length(1);
    const told = await until(() => ended.filter((e) => e.run_id === runId), { what: 'the run-ended hook', ok: (l) => l.length > 0 });
    expect(told[0]).to.deep.include({ run_id: runId, account: 'bob', status: 'completed', automation_id: 'auto-9', role: 'occurrence', occurrence_index: 1, seen_status: 'completed', wait: null });
    // A later run's end comes after: by then any second telling of the first would have come too.
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'echo', input_data: { prompt: 'later' } } });
    expect(res.statusCode).to.equal(200);
    const laterId = res.json<{ run_id: string }>().run_id;
    await until(() => ended.some((e) => e.run_id === laterId), { what: 'the later run-ended hook' });
    expect(ended.filter((e) => e.run_id === runId)).to.have.length(1);
    expect(ended.some((e) => e.run_id === children[0]!.run_id)).to.equal(false);
    // A run started by POST /runs/start has no tags.
    expect(ended.find((e) => e.run_id === laterId)).to.deep.include({ automation_id: null, role: null, occurrence_index: null, status: 'completed' });
  });

  it('tells event listeners about an emit_event command once it was delivered', async () => {
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'echo' }, inputData: {}, runId, sessionId: 'events-session' })).statusCode).to.equal(200);
    await endOf(bob, runId);
    const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { command_id: 'emit-1', run_id: runId, type: 'emit_event', payload: { name: 'build.done', payload: { ok: true }, session_id: 'events-session' } } });
    expect(res.statusCode, res.body).to.equal(200);
    const told = await until(() => emitted.filter((e) => e.command_id === 'emit-1'), { what: 'the event hook', ok: (l) => l.length > 0 });
    expect(told).to.have.length(1);
    expect(told[0]).to.deep.include({ account: 'bob', name: 'build.done', scope: 'session', session_id: 'events-session', event_id: 'emit-1', command_id: 'emit-1' });
    expect(told[0]!.payload).to.deep.equal({ ok: true });
    expect(Number.isNaN(Date.parse(told[0]!.emitted_at))).to.equal(false);
  });

  it('lets a command target claim POST /commands before the runs: its answer (or refusal) is the response', async () => {
    const claimed = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { command_id: 'c-1', run_id: 'auto-1', type: 'automation.pause', payload: { why: 'x' } } });
    expect(claimed.statusCode, claimed.body).to.equal(200);
    expect(claimed.json()).to.deep.equal({ claimed_by: 'launcher-probe', command_id: 'c-1', type: 'automation.pause', account: 'bob', payload: { why: 'x' } });
    // The command id is filled before the target sees it.
    const noId = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { run_id: 'auto-1', type: 'automation.resume' } });
    expect(noId.json<{ command_id: string }>().command_id).to.match(/^[0-9a-f-]{36}$/);
    const refused = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { run_id: 'auto-7', type: 'pause' } });
    expect(refused.statusCode).to.equal(409);
    expect(refused.json()).to.deep.equal({ detail: { reason_code: 'invalid_state', message: "Run commands cannot be sent to automation 'auto-7'." } });
  });

  it('leaves unclaimed commands to the runs as before', async () => {
    const unknownType = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { run_id: 'r-1', type: 'explode' } });
    expect(unknownType.statusCode).to.equal(400);
    expect(unknownType.json<{ detail: { message: string } }>().detail.message).to.match(/^Unknown command type 'explode'; use one of pause, resume, cancel/);
    const runId = crypto.randomUUID();
    expect((await launch(bob, { target: { bundle_id: 'ask' }, inputData: {}, runId, sessionId: null })).statusCode).to.equal(200);
    // Another account's run is 404 as before; the owner's cancel is queued.
    expect((await k.inject({ method: 'POST', url: '/api/gateway/commands', token: carol, payload: { run_id: runId, type: 'cancel' } })).statusCode).to.equal(404);
    const cancel = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: bob, payload: { command_id: 'plain-cancel', run_id: runId, type: 'cancel' } });
    expect(cancel.statusCode, cancel.body).to.equal(200);
    expect(cancel.json()).to.deep.include({ accepted: true, duplicate: false });
    expect((await endOf(bob, runId)).status).to.equal('cancelled');
  });
});

describe('runs.launcher in a server that does not execute runs (--no-runner)', function () {
  this.timeout(120_000);
  let k: TestKernel;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { runner: false } }, probePlugin] });
  });
  after(() => k?.stop());

  it('says so and never calls whenExecuting; a launch stores the run for a separate runner', async () => {
    const told = executing;
    const bob = await createAccount(k, 'bob');
    expect((await k.inject({ url: '/api/probe/executing', token: bob })).json()).to.deep.equal({ executes: false, told });
    await uploadBundleAs(k, bob, 'echo', echoFlow);
    const runId = crypto.randomUUID();
    const res = await k.inject({ method: 'POST', url: '/api/probe/launch', token: bob, payload: { target: { bundle_id: 'echo' }, inputData: { prompt: 'later' }, runId, sessionId: null } });
    expect(res.statusCode, res.body).to.equal(200);
    const run = (await k.inject({ url: `/api/gateway/runs/${runId}`, token: bob })).json<RunRecord>();
    expect(run.status).to.equal('running');
    expect((await k.inject({ url: `/api/probe/outcome/${runId}`, token: bob })).json<{ outcome: Outcome }>().outcome).to.deep.include({ run_id: runId, status: 'running', wait: null });
  });
});
