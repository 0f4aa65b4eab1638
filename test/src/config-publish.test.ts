/**
 * `POST /visualflows/{flow_id}/publish` through the HTTP API (seed 000 §4.2): an admin publishes a
 * VisualFlow JSON as a bundle in the shared directory (`source: published`), every account runs it,
 * a declared interface can become a default agent workflow; non-admins and broken flows are refused.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount } from './helpers/accounts.js';
import { edges, node } from './helpers/flow-builder.js';
import { until } from './helpers/until.js';

/** The flow an editor saves: start's `message` goes to the end's `response`. */
const echo = {
  name: 'Echo',
  entryNode: 'start',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['message'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.message -> end.response'),
};

describe('publishing a VisualFlow: POST /visualflows/{flow_id}/publish (HTTP)', function () {
  let k: TestKernel;
  let bob: string;
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    bob = await createAccount(k, 'bob');
  });
  after(() => k?.stop());

  const call = (method: string, path: string, token: string | undefined, payload?: unknown) =>
    k.inject({ method, url: `/api/gateway${path}`, ...(token ? { token } : {}), ...(payload === undefined ? {} : { payload }) });
  const publish = (flowId: string, body: Record<string, unknown>, token: string | null = k.adminToken) => call('POST', `/visualflows/${flowId}/publish`, token ?? undefined, body);

  it('publishes the flow as a shared bundle listed with source published, which another account runs', async () => {
    const res = await publish('echo', { flow: echo, description: 'Says it back', interfaces: ['echo.agent.v1'] });
    expect(res.statusCode, res.body).to.equal(201);
    const body = res.json<Record<string, unknown>>();
    expect(body).to.deep.include({ bundle_id: 'echo', bundle_version: '1.0.0', flow_id: 'echo', workflow_id: 'echo@1.0.0:echo', source: 'published', scope: 'shared', replaced: false });
    expect(body.sha256).to.match(/^[0-9a-f]{64}$/);
    const listed = (await call('GET', '/bundles', bob)).json<{ items: Array<{ bundle_id: string; source: string; description: string; entrypoints: Array<{ name: string; interfaces: string[] }> }> }>().items;
    const row = listed.find((b) => b.bundle_id === 'echo')!;
    expect(row).to.deep.include({ source: 'published', description: 'Says it back' });
    expect(row.entrypoints[0]).to.deep.include({ name: 'Echo', interfaces: ['echo.agent.v1'] });
    const started = await call('POST', '/runs/start', bob, { bundle_id: 'echo', input_data: { message: 'hello' } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await call('GET', `/runs/${runId}`, bob)).json<{ status: string; output: Record<string, unknown> | null }>(), { ok: (r) => r.status === 'completed', deadline: 60_000, what: 'the published flow to complete' });
    expect(run.output).to.deep.include({ response: 'hello' });
  });

  it('a published interface can be saved as the default agent workflow', async () => {
    const saved = await call('PUT', '/admin/runtime-config', k.adminToken, { values: { 'agents.default_workflow.echo.agent.v1': 'echo:echo' } });
    expect(saved.statusCode, saved.body).to.equal(200);
    const started = await call('POST', '/runs/start', bob, { flow_id: '@default', interface: 'echo.agent.v1', input_data: { message: 'hi' } });
    expect(started.json<{ resolved_workflow: Record<string, unknown> }>().resolved_workflow).to.deep.include({ bundle_id: 'echo', source: 'gateway_default' });
  });

  it('refuses the same version again (409), publishes the next version when bundle_version is left out, replaces with overwrite', async () => {
    const again = await publish('echo', { flow: echo, bundle_version: '1.0.0' });
    expect(again.statusCode).to.equal(409);
    expect(again.json<{ detail: { message: string } }>().detail.message).to.equal('echo@1.0.0 is already published; send overwrite: true to replace it, or leave bundle_version out to publish the next version.');
    const next = await publish('echo', { flow: echo });
    expect(next.statusCode).to.equal(201);
    expect(next.json()).to.deep.include({ bundle_version: '1.0.1', replaced: false });
    const replaced = await publish('echo', { flow: echo, bundle_version: '1.0.1', overwrite: true });
    expect(replaced.json()).to.deep.include({ bundle_version: '1.0.1', replaced: true });
  });

  it('refuses a non-admin (403) and no token (401), and writes nothing', async () => {
    const refused = await publish('sneaky', { flow: echo }, bob);
    expect(refused.statusCode).to.equal(403);
    expect(refused.json<{ detail: unknown }>().detail).to.be.a('string');
    expect((await publish('sneaky', { flow: echo }, null)).statusCode).to.equal(401);
    const listed = (await call('GET', '/bundles', k.adminToken)).json<{ items: Array<{ bundle_id: string }> }>().items;
    expect(listed.map((b) => b.bundle_id)).not.to.include('sneaky');
  });

  it('refuses a broken flow or hostile ids with 400 naming the problem', async () => {
    const wrongId = await publish('echo', { flow: { ...echo, id: 'other' } });
    expect(wrongId.statusCode).to.equal(400);
    expect(wrongId.json<{ detail: { field: string } }>().detail.field).to.equal('body.flow.id');
    const noNodes = await publish('bare', { flow: { edges: [] } });
    expect(noNodes.statusCode).to.equal(400);
    // A subflow node naming a flow the bundle does not hold is refused, as on upload.
    const sub = node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'missing' } });
    const dangling = await publish('dangling', { flow: { ...echo, nodes: [...echo.nodes, sub], edges: edges('start -> sub', 'sub -> end') } });
    expect(dangling.statusCode, dangling.body).to.equal(400);
    expect(dangling.json<{ detail: { message: string; field: string } }>().detail).to.deep.include({ field: 'body.flow' });
    expect(dangling.json<{ detail: { message: string } }>().detail.message).to.match(/^The flow cannot be published: .*missing/);
    for (const id of ['..%2F..%2Fetc', 'a%20b', 'x.flow']) expect((await publish(id, { flow: echo })).statusCode, id).to.equal(400);
    expect((await publish('ok', { flow: echo, bundle_id: '../up' })).statusCode).to.equal(400);
    expect((await publish('ok', { flow: echo, bundle_version: '1/2' })).statusCode).to.equal(400);
    expect((await publish('ok', { flow: echo, subflows: [{ id: 'ok', nodes: [], edges: [] }] })).statusCode).to.equal(400);
    expect((await publish('ok', { flow: echo, extra: 1 })).statusCode).to.equal(400);
  });
});
