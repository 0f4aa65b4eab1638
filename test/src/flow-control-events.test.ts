/**
 * Events between runs (reference runtime-nodes §7.1–7.2, S5), through the HTTP API on the real
 * runner and LMDB: each root run starts one listener child run per `on_event` node
 * (`visual_event_listener_<flow>_<node>`), waiting on `evt:session:<sid>:<name>`; a root's
 * `emit_event` reaches it with the origin's envelope, the listener runs its branch and waits again.
 * A `run`-scoped listener never matches another run; a blank name listens to every event of the
 * session (`*`), which the external command never reaches; another account's runs are never reached.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

/** A listener: `on_event` (config name and scope) → answer_user with the event's payload value; no exec edge after it, so it loops. */
function listener(id: string, eventConfig: Record<string, unknown>) {
  return [
    node({ id, type: 'on_event', inputs: ['scope'], outputs: ['event', 'payload', 'event_id', 'name'], data: { eventConfig } }),
    node({ id: `${id}_say`, type: 'answer_user', inputs: ['message'], outputs: ['message'] }),
  ];
}
const listenerEdges = (id: string) => [`${id} -> ${id}_say`, `${id}.name -> ${id}_say.message`];

/** start → emit (name and payload from the start's inputs, scope from the config) → end with the emit's outputs; plus listeners. */
function emitterFlow(scope: string, listeners: Array<[string, Record<string, unknown>]>) {
  return {
    id: 'main',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['ev', 'value'] }),
      node({ id: 'emit', type: 'emit_event', inputs: ['name', 'payload'], outputs: ['delivered', 'delivered_to', 'wait_key', 'resumed', 'available_listeners_in_session'], data: { effectConfig: { scope } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['delivered', 'delivered_to', 'wait_key', 'resumed', 'available'] }),
      ...listeners.flatMap(([id, config]) => listener(id, config)),
    ],
    edges: edges(
      'start -> emit', 'emit -> end', 'start.ev -> emit.name', 'start.value -> emit.payload',
      'emit.delivered -> end.delivered', 'emit.delivered_to -> end.delivered_to', 'emit.wait_key -> end.wait_key', 'emit.resumed -> end.resumed', 'emit.available_listeners_in_session -> end.available',
      ...listeners.flatMap(([id]) => listenerEdges(id)),
    ),
  };
}

describe('flow control: emit_event and on_event listeners (S5)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => k.inject({ method, url, token, payload: payload as Record<string, unknown> | undefined });
  const getRun = async (id: string, token = k.adminToken) => (await call(token, 'GET', `/api/gateway/runs/${id}`)).json<RunRecord>();
  const ledger = async (id: string, token = k.adminToken) => (await call(token, 'GET', `/api/gateway/runs/${id}/ledger?limit=2000`)).json<{ items: LedgerItem[] }>().items;
  const children = async (id: string, token = k.adminToken) => (await call(token, 'GET', `/api/gateway/runs?parent_run_id=${id}`)).json<{ items: RunRecord[] }>().items;
  const start = async (bundleId: string, inputData: Record<string, unknown>, sessionId?: string, token = k.adminToken) => {
    const res = await call(token, 'POST', '/api/gateway/runs/start', { bundle_id: bundleId, input_data: inputData, ...(sessionId ? { session_id: sessionId } : {}) });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  };
  const finished = (id: string, token = k.adminToken) => until(() => getRun(id, token), { ok: ended, deadline: 90_000, what: `run ${id} to end` });
  const resumes = async (id: string, token = k.adminToken) => (await ledger(id, token)).filter((i) => i.effect?.type === 'resume');
  /** The listener run of `nodeId` started for `rootId`, once it waits for its event again after `deliveries` events. */
  const listenerOf = async (rootId: string, nodeId: string, deliveries = 0, token = k.adminToken) => {
    const found = (await until(async () => (await children(rootId, token)).find((r) => r.workflow_id.endsWith(`_${nodeId}`)), { deadline: 60_000, what: `the listener run of ${nodeId}` }))!;
    const run: RunRecord = found;
    await until(async () => ({ run: await getRun(run.run_id, token), resumed: (await resumes(run.run_id, token)).length }), {
      ok: (s) => s.run.status === 'waiting' && s.resumed === deliveries,
      deadline: 60_000,
      what: `listener ${nodeId} of ${rootId} to wait after ${deliveries} events`,
    });
    return run;
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    const created = await call(k.adminToken, 'POST', '/api/gateway/admin/users', { account: 'bob' });
    expect(created.statusCode, created.body).to.equal(201);
    bob = created.json<{ token: { token: string } }>().token.token;
    const flows: Array<[string, ReturnType<typeof emitterFlow>]> = [
      ['telegram', emitterFlow('session', [['listen', { name: 'telegram.message', scope: 'session' }]])],
      ['scoped', emitterFlow('run', [['listen', { name: 'ping', scope: 'run' }]])],
      ['wild', emitterFlow('session', [['any', { name: '', scope: 'session' }], ['gamma', { name: 'gamma', scope: 'session' }]])],
    ];
    for (const token of [k.adminToken, bob]) {
      for (const [id, flow] of flows) {
        const body = multipart({ scope: 'private' }, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
        const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
        expect(res.statusCode, res.body).to.equal(201);
      }
    }
  });
  after(() => k?.stop());

  it('a root run starts its listener, whose wait the root\'s emit_event reaches with the envelope; the listener runs its branch and waits again', async () => {
    const rootId = await start('telegram', { ev: 'telegram.message', value: 'hi' });
    const root = await finished(rootId);
    expect(root.status).to.equal('completed');
    const listen = await listenerOf(rootId, 'listen', 1);
    expect(listen.workflow_id).to.equal('visual_event_listener_telegram_1_0_0_main_listen');
    expect(listen.parent_run_id).to.equal(rootId);
    expect(root.output).to.deep.include({ delivered: 1, delivered_to: [listen.run_id], wait_key: `evt:session:${rootId}:telegram.message`, resumed: [{ run_id: listen.run_id, status: 'running' }], available: null });

    const items = await ledger(listen.run_id);
    const waits = items.filter((i) => i.status === 'waiting');
    expect(waits).to.have.length(2);
    for (const w of waits) expect((w.result as { wait: Record<string, unknown> }).wait).to.deep.include({ reason: 'event', wait_key: `evt:session:${rootId}:telegram.message`, result_key: '_temp.effects.listen', allow_free_text: true });
    const [resume] = items.filter((i) => i.effect?.type === 'resume');
    const envelope = resume!.effect!.payload.payload as Record<string, unknown>;
    expect(envelope).to.deep.include({ event_id: `${rootId}:emit:1`, name: 'telegram.message', scope: 'session', session_id: rootId, payload: { value: 'hi' }, emitter: { run_id: rootId, workflow_id: 'telegram@1.0.0:main', node_id: 'emit' } });
    expect(Number.isNaN(Date.parse(String(envelope.emitted_at)))).to.equal(false);
    // The branch ran once with the event (its name reaches answer_user), then control came back to the listener.
    const said = items.filter((i) => i.effect?.type === 'answer_user' && i.status === 'completed');
    expect(said.map((i) => i.result)).to.deep.equal([{ message: 'telegram.message', level: 'message' }]);
  });

  it('an event nobody waits for is delivered to none, and the result names the events the session does wait for', async () => {
    const rootId = await start('telegram', { ev: 'telegram.edited', value: { text: 'x' } });
    const root = await finished(rootId);
    expect(root.output).to.deep.include({ delivered: 0, delivered_to: [], resumed: [], available: ['telegram.message'] });
    await listenerOf(rootId, 'listen', 0);
  });

  it("a run-scoped listener never matches another run's emit_event (the key names the emitting run); the command naming its run reaches it", async () => {
    const rootId = await start('scoped', { ev: 'ping' });
    const root = await finished(rootId);
    const listen = await listenerOf(rootId, 'listen', 0);
    expect(root.output).to.deep.include({ delivered: 0, wait_key: `evt:run:${rootId}:ping` });
    const wait = (await ledger(listen.run_id)).find((i) => i.status === 'waiting')!;
    expect((wait.result as { wait: { wait_key: string } }).wait.wait_key).to.equal(`evt:run:${listen.run_id}:ping`);
    // The external command names the run of a `run` scope (reference §6.2): the listener's own id reaches it.
    const res = await call(k.adminToken, 'POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: rootId, type: 'emit_event', payload: { name: 'ping', scope: 'run', run_id: listen.run_id } });
    expect(res.statusCode, res.body).to.equal(200);
    await listenerOf(rootId, 'listen', 1);
    const envelope = (await resumes(listen.run_id))[0]!.effect!.payload.payload as Record<string, unknown>;
    expect(envelope).to.deep.include({ name: 'ping', scope: 'run', session_id: rootId, payload: { value: null } });
  });

  it("a blank-named listener gets every event of its session; the external command reaches exact keys only, never another account's runs", async () => {
    const session = `wild-${crypto.randomUUID()}`;
    const first = await start('wild', { ev: 'alpha', value: 1 }, session);
    expect((await finished(first)).output).to.deep.include({ delivered: 1 });
    const any = await listenerOf(first, 'any', 1);
    const gamma = await listenerOf(first, 'gamma', 0);

    // Bob runs the same flow in a session of the same name: his listeners wait on the same keys, in his account.
    const bobRoot = await start('wild', { ev: 'unheard' }, session, bob);
    await finished(bobRoot, bob);
    const bobAny = await listenerOf(bobRoot, 'any', 1, bob);
    const bobGamma = await listenerOf(bobRoot, 'gamma', 0, bob);

    // A second root of the session emits `news:beta` (a colon in the name): both of the admin's wildcard listeners get it, Bob's do not.
    const second = await start('wild', { ev: 'news:beta', value: 2 }, session);
    const out = (await finished(second)).output!;
    const secondAny = await listenerOf(second, 'any', 1);
    expect(out.delivered).to.equal(2);
    expect([...(out.delivered_to as string[])].sort()).to.deep.equal([any.run_id, secondAny.run_id].sort());
    await listenerOf(first, 'any', 2);
    const names = (await resumes(any.run_id)).map((r) => (r.effect!.payload.payload as { name: string }).name);
    expect(names).to.deep.equal(['alpha', 'news:beta']);

    // The external command: `gamma` reaches the exact-key listeners of the command's account, not the `*` ones.
    const res = await call(k.adminToken, 'POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: first, type: 'emit_event', payload: { name: 'gamma', scope: 'session', session_id: session, payload: 'g' } });
    expect(res.statusCode, res.body).to.equal(200);
    await listenerOf(first, 'gamma', 1);
    await listenerOf(second, 'gamma', 1);
    const envelope = (await resumes(gamma.run_id))[0]!.effect!.payload.payload as Record<string, unknown>;
    expect(envelope).to.deep.include({ name: 'gamma', scope: 'session', session_id: session, payload: { value: 'g' }, emitter: { source: 'external', client_id: null } });
    expect(await resumes(any.run_id)).to.have.length(2);
    expect(await resumes(secondAny.run_id)).to.have.length(1);
    // Bob's listeners heard nothing of the admin's events: only his own root's.
    expect((await resumes(bobAny.run_id, bob)).map((r) => (r.effect!.payload.payload as { name: string }).name)).to.deep.equal(['unheard']);
    expect(await resumes(bobGamma.run_id, bob)).to.have.length(0);
  });
});

describe('flow control: listener runs are bounded per account (limits.maxListenerRunsPerAccount)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => k.inject({ method, url, token, payload: payload as Record<string, unknown> | undefined });

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxListenerRunsPerAccount: 2 } } }] });
    bob = (await call(k.adminToken, 'POST', '/api/gateway/admin/users', { account: 'bob' })).json<{ token: { token: string } }>().token.token;
    const body = multipart({ scope: 'private' }, { name: 'telegram.flow', bytes: bundle('telegram', '1.0.0', emitterFlow('session', [['listen', { name: 'telegram.message', scope: 'session' }]])) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
  });
  after(() => k?.stop());

  it('refuses a start whose listeners would pass the cap with 429 naming the setting, and admits it once a root tree is cancelled', async () => {
    const start = () => call(bob, 'POST', '/api/gateway/runs/start', { bundle_id: 'telegram', input_data: { ev: 'nothing' } });
    const listenersLive = async () => (await call(bob, 'GET', '/api/gateway/runs')).json<{ items: RunRecord[] }>().items.filter((r) => r.workflow_id.startsWith('visual_event_listener_') && !ended(r)).length;
    const roots: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await start();
      expect(res.statusCode, res.body).to.equal(200);
      roots.push(res.json<{ run_id: string }>().run_id);
      await until(listenersLive, { ok: (n) => n === i + 1, deadline: 60_000, what: `${i + 1} listener runs` });
    }
    const refused = await start();
    expect(refused.statusCode).to.equal(429);
    const detail = refused.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('too_many_listener_runs');
    expect(detail.message).to.contain('limits.maxListenerRunsPerAccount');
    // The roots themselves completed: only their listeners still wait, until their tree is cancelled.
    await call(bob, 'POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: roots[0], type: 'cancel', payload: {} });
    await until(listenersLive, { ok: (n) => n === 1, deadline: 60_000, what: 'the cancelled tree\'s listener to end' });
    expect((await start()).statusCode).to.equal(200);
  });
});
