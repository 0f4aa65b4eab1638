/**
 * Attack (issue 13): a flow whose `subflow` names itself (allowed: the flow is in its bundle, so the
 * upload check passes) starts a child that starts a child, for ever. Every child has fresh budgets
 * (`maxSteps`, `maxRunCpuMs`) and only root runs count against `maxActiveRunsPerAccount`, so one
 * non-admin run grew the store and kept the runner busy without end. Now a run nested deeper than
 * `limits.maxRunDepth` below its root is not started: the subflow fails, its parent goes on as
 * after any failed child, and the root ends listing the failure.
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

describe('attack i13: a subflow that starts itself', function () {
  this.timeout(600_000);
  let k: TestKernel;
  let eve = '';

  before(async () => {
    // The default limits: the attack must end on the settings every deployment has.
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    eve = await createAccount(k, 'eve');
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'main' } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> sub', 'sub -> end', 'sub.output -> end.response'),
    };
    await uploadBundleAs(k, eve, 'rec', flow);
  });
  after(() => k?.stop());

  it('ends: the run past limits.maxRunDepth is refused, and the root lists that failure', async () => {
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: eve, payload: { bundle_id: 'rec', input_data: {} } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: eve })).json<Run>(), {
      what: 'the self-recursive root run to end',
      ok: (r) => r.status !== 'running' && r.status !== 'waiting',
      deadline: 240_000,
    });
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.child_failures.length).to.be.above(0);
    const deepest = run.child_failures.find((f) => f.error?.includes('maxRunDepth'));
    expect(deepest, JSON.stringify(run.child_failures.slice(0, 2))).to.not.equal(undefined);
    expect(deepest!.error).to.match(/^A run may nest at most 32 runs below its root \(setting `limits\.maxRunDepth` of the gateway-runs plugin\); subflow 'main' was not started\.$/);
  });
});
