/**
 * Review of issue 21's start `wait`: `until: 'waiting'` answers when the run waits for outside input,
 * also when that input is asked by a child the run waits on (a `subflow` whose flow asks the user, an
 * `agent` node whose ReAct child asks): the root then waits with reason `subworkflow`, and without
 * following its child the start would hold until its timeout. `until: 'completed'` still holds on.
 */
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount } from './helpers/accounts.js';
import { askUserFlow, bundle, edges, multipart, node } from './helpers/flow-builder.js';

/** start → subflow `ask` (start → ask_user → end) → end. */
const parentFlow = {
  id: 'main',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'ask' } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> sub', 'sub -> end', 'sub.output -> end.response'),
};

type WaitAnswer = { run_id: string; run: { run_id: string; status: string; waiting: { reason: string; details?: Record<string, unknown> } | null }; wait: { until: string; reached: boolean } };

describe('durable21 review: a start waiting until the run waits for input, asked by a child', function () {
  this.timeout(240_000);
  let k: TestKernel;
  let ann = '';

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { startWait: { maxTimeoutS: 120 } } }] });
    ann = await createAccount(k, 'ann');
    const body = multipart({}, { name: 'nested.flow', bytes: bundle('nested', '1.0.0', parentFlow, [askUserFlow('ask')]) });
    const uploaded = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: ann, payload: body.payload, headers: body.headers });
    expect(uploaded.statusCode, uploaded.body).to.equal(201);
  });
  after(async () => k?.stop());

  const start = (body: Record<string, unknown>): Promise<InjectResponse> => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: ann, payload: body });
  const cancel = async (runId: string) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: crypto.randomUUID(), run_id: runId, type: 'cancel', payload: {} } });
    expect(res.statusCode, res.body).to.equal(200);
  };

  it("'waiting' answers (reached) when the root waits on a child that asks the user; 'completed' still times out", async () => {
    const t0 = Date.now();
    const res = await start({ bundle_id: 'nested', wait: { until: 'waiting', timeout_s: 45 } });
    expect(res.statusCode, res.body).to.equal(200);
    const answer = res.json<WaitAnswer>();
    expect(answer.wait, `answered after ${Date.now() - t0} ms`).to.deep.equal({ until: 'waiting', reached: true });
    expect(answer.run.status).to.equal('waiting');
    expect(answer.run.waiting?.reason).to.equal('subworkflow');
    const child = String(answer.run.waiting?.details?.sub_run_id);
    const childRun = (await k.inject({ url: `/api/gateway/runs/${child}`, token: ann })).json<WaitAnswer['run']>();
    expect(childRun.status).to.equal('waiting');
    expect(childRun.waiting?.reason).to.equal('user');

    const held = await start({ bundle_id: 'nested', wait: { until: 'completed', timeout_s: 2 } });
    expect(held.statusCode, held.body).to.equal(200);
    expect(held.json<WaitAnswer>().wait).to.deep.equal({ until: 'completed', reached: false });
    for (const id of [answer.run_id, held.json<WaitAnswer>().run_id]) await cancel(id);
  });
});
