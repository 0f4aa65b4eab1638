/**
 * Attack (issue 13): within `limits.maxRunDepth`, a flow that calls itself twice (two `subflow`
 * nodes naming its own flow, one after the other) doubles at every level: 2^33 runs at the default
 * depth, each with fresh budgets, from one non-admin start. Now a root has at most
 * `limits.maxRunsPerTree` runs below it; past it a child is not started, the subflow fails and its
 * parent goes on, so the root ends (here failed, its own second subflow refused).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';

type Run = RunRecord & { child_failures: Array<{ run_id: string; status: string; error: string | null }> };

describe('attack i13: a subflow recursion that branches', function () {
  this.timeout(600_000);
  let k: TestKernel;
  let eve = '';

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxRunsPerTree: 120 } } }] });
    eve = await createAccount(k, 'eve');
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'left', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'main' } }),
        node({ id: 'right', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'main' } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> left', 'left -> right', 'right -> end', 'right.output -> end.response'),
    };
    await uploadBundleAs(k, eve, 'fan', flow);
  });
  after(() => k?.stop());

  it('ends once the tree holds limits.maxRunsPerTree runs, naming the setting', async () => {
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: eve, payload: { bundle_id: 'fan', input_data: {} } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: eve })).json<Run>(), {
      what: 'the branching recursion to end',
      ok: (r) => r.status !== 'running' && r.status !== 'waiting',
      deadline: 300_000,
    });
    // The tree fills before the root's own second subflow starts: that effect fails, and so the root, naming the setting.
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("A run tree may hold at most 120 runs below its root (setting `limits.maxRunsPerTree` of the gateway-runs plugin); subflow 'main' was not started.");
    expect(run.child_failures.length).to.be.above(0);
  });
});
