/**
 * Review of issue 21's durability classes: an effect whose `started` record the ledger would refuse
 * (over `maxRecordBytes`) fails its run BEFORE its work, whatever its class. A `committed` effect's
 * started record is no longer written before the work (it goes with the run's state after it), so
 * without a check first a child run was created and ran (a `subflow` with a large input) while its
 * parent failed for the record it could not write: a child nobody waits for, started by a failed run.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

/** start → subflow `echo` with the input's `payload` object as its variables → end. */
const parentFlow = {
  id: 'main',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['payload'] }),
    node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'echo' } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> sub', 'sub -> end', 'start.payload -> sub.input', 'sub.output -> end.response'),
};
const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['input'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.input -> end.response'),
};

describe('durable21 review: a record the ledger refuses stops the effect before its work', function () {
  this.timeout(240_000);
  let k: TestKernel;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, { plugin: ledgerPlugin, config: { maxRecordBytes: 65_536 } }, workspacesPlugin, gatewayRunsPlugin] });
    const body = multipart({}, { name: 'parent.flow', bytes: bundle('parent', '1.0.0', parentFlow, [echoFlow]) });
    const uploaded = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
    expect(uploaded.statusCode, uploaded.body).to.equal(201);
  });
  after(async () => k?.stop());

  it('a subflow whose started record is over maxRecordBytes fails the parent naming the limit, and starts no child', async () => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'parent', input_data: { payload: { text: 'p'.repeat(70_000) } }, wait: { timeout_s: 120 } } });
    expect(res.statusCode, res.body).to.equal(200);
    const { run_id: runId, run } = res.json<{ run_id: string; run: { status: string; error: string | null } }>();
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("The ledger record of node 'sub' is larger than 64 KiB, the largest record a run may write (setting `maxRecordBytes` of the ledger plugin).");
    // A child exists before its parent's records are written: once the parent has ended, any child would be listed.
    const children = async () => (await k.inject({ url: `/api/gateway/runs?parent_run_id=${runId}`, token: k.adminToken })).json<{ items: unknown[] }>().items;
    const ledger = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}/ledger`, token: k.adminToken })).json<{ items: Array<{ node_id: string; status: string }> }>().items, { what: "the parent's ledger to hold its end", ok: (items) => items.length > 0, deadline: 60_000 });
    expect(ledger.filter((r) => r.node_id === 'sub' && r.status === 'started')).to.have.length(0);
    expect(await children()).to.deep.equal([]);
  });
});
