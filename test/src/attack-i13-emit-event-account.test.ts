/**
 * Attack (issue 13): `POST /commands` with `type: emit_event` did not check that the caller owns the
 * run it names, and the runner delivered the event in that run's account. Eve naming Bob's run id
 * (any id she saw, e.g. a shared session's) woke Bob's `on_event` listeners with her payload, which
 * then ran their branches in Bob's account. Now the command answers 404 for a run of another
 * account, as every other command does.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { createAccount } from './helpers/accounts.js';

describe("attack i13: emit_event commands naming another account's run", function () {
  this.timeout(300_000);
  let k: TestKernel;
  const tokens: Record<string, string> = {};
  const call = (account: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => k.inject({ method, url, token: tokens[account], payload });
  const resumes = async (runId: string) =>
    (await call('bob', 'GET', `/api/gateway/runs/${runId}/ledger?limit=500`)).json<{ items: LedgerItem[] }>().items.filter((i) => i.effect?.type === 'resume');

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    for (const account of ['bob', 'eve']) {
      tokens[account] = await createAccount(k, account);
    }
    // start → end, and a listener: on_event `ping` (session) → answer_user with the event's payload.
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'end', type: 'on_flow_end', inputs: [] }),
        node({ id: 'listen', type: 'on_event', inputs: ['scope'], outputs: ['event', 'payload', 'event_id', 'name'], data: { eventConfig: { name: 'ping', scope: 'session' } } }),
        node({ id: 'say', type: 'answer_user', inputs: ['message'], outputs: ['message'] }),
      ],
      edges: edges('start -> end', 'listen -> say', 'listen.payload -> say.message'),
    };
    const body = multipart({}, { name: 'listen.flow', bytes: bundle('listen', '1.0.0', flow) });
    const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: tokens.bob, payload: body.payload, headers: body.headers });
    expect(res.statusCode, res.body).to.equal(201);
  });
  after(() => k?.stop());

  it("refuses eve's emit_event naming bob's run with 404, and bob's listener hears only bob", async () => {
    const started = await call('bob', 'POST', '/api/gateway/runs/start', { bundle_id: 'listen', input_data: {}, session_id: 'bob-session' });
    expect(started.statusCode, started.body).to.equal(200);
    const root = started.json<{ run_id: string }>().run_id;
    const listener = await until(async () => (await call('bob', 'GET', `/api/gateway/runs?parent_run_id=${root}`)).json<{ items: RunRecord[] }>().items[0], { what: "bob's listener run", deadline: 60_000 });
    await until(async () => (await call('bob', 'GET', `/api/gateway/runs/${listener!.run_id}`)).json<RunRecord>(), { what: "bob's listener to wait", ok: (r) => r.status === 'waiting', deadline: 60_000 });

    const eve = await call('eve', 'POST', '/api/gateway/commands', { run_id: root, type: 'emit_event', payload: { name: 'ping', scope: 'session', session_id: 'bob-session', payload: 'from eve' } });
    expect(eve.statusCode, eve.body).to.equal(404);
    expect(eve.json<{ detail: string }>().detail).to.equal(`Run '${root}' not found.`);

    // Bob's own event is the first his listener hears.
    const own = await call('bob', 'POST', '/api/gateway/commands', { run_id: root, type: 'emit_event', payload: { name: 'ping', scope: 'session', session_id: 'bob-session', payload: 'from bob' } });
    expect(own.statusCode, own.body).to.equal(200);
    const heard = await until(() => resumes(listener!.run_id), { what: "bob's listener to hear an event", ok: (r) => r.length > 0, deadline: 60_000 });
    expect((heard[0]!.effect!.payload.payload as { payload: unknown }).payload).to.deep.equal({ value: 'from bob' });
  });
});
