/**
 * Child failures (issue 13 item 5, reference runtime-nodes §6 S4), through the HTTP API on the real
 * runner and LMDB: a failed or cancelled child resumes its parent with the origin's payload and the
 * parent goes on, but its run row and resume record keep the failure (also from a grandchild); an
 * agent child's failure leaves the node's `success: true` as in the origin; a subflow naming a flow
 * the bundle lacks fails the parent at run time and is refused at upload with the packer's sentence.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

interface ChildFailure { run_id: string; parent_run_id: string; workflow_id: string; status: string; error: string | null }
type Run = RunRecord & { child_failures: ChildFailure[]; session_id: string | null };

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';
const BOOM_ERROR = "ValueError: emit_event node 'emit' missing event name";

/** A flow that fails: its emit_event has no event name (a tick exception, RN §2 rule 5). */
const boomFlow = {
  id: 'boom',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'emit', type: 'emit_event', inputs: ['name', 'payload'], outputs: ['delivered'], data: { pinDefaults: { name: '' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> emit', 'emit -> end'),
};

/** A flow that waits for an answer (cancelled by the test). */
const waiterFlow = {
  id: 'waiter',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Anything?' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> ask', 'ask -> end', 'ask.response -> end.response'),
};

/** start → agent (on a provider nothing serves, so its child run fails) → end with the agent's response and success. */
const agentFlow = {
  id: 'main',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    node({ id: 'think', type: 'agent', inputs: ['prompt'], outputs: ['response', 'success'], data: { pinDefaults: { prompt: 'Plan a trip.' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'success'] }),
  ],
  edges: edges('start -> think', 'think -> end', 'think.response -> end.response', 'think.success -> end.success'),
};

/** start → subflow `target` → end with the subflow's `output`, its `child_output` and a declared pin `detail`. */
function parentFlow(id: string, target: string) {
  return {
    id,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output', 'detail'], data: { subflowId: target } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'child', 'detail'] }),
    ],
    edges: edges('start -> sub', 'sub -> end', 'sub.output -> end.response', 'sub.child_output -> end.child', 'sub.detail -> end.detail'),
  };
}

describe('flow control: child failures (S4)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  const getRun = async (id: string) => (await api.getRun(id)) as Run;
  const upload = async (id: string, flow: Parameters<typeof bundle>[2], subflows: Parameters<typeof bundle>[3]) => {
    const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow, subflows) });
    return k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
  };
  const start = async (bundleId: string, inputData: Record<string, unknown> = {}) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: inputData } });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  };
  const finished = (id: string) => until(() => getRun(id), { ok: ended, deadline: 90_000, what: `run ${id} to end` });
  const subRunOf = (items: LedgerItem[], nodeId: string) => String((items.find((i) => i.node_id === nodeId && i.status === 'waiting')?.result as { sub_run_id?: string } | undefined)?.sub_run_id);

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    for (const [id, flow, subs] of [
      ['direct', parentFlow('main', 'boom'), [boomFlow]],
      ['nested', parentFlow('main', 'middle'), [parentFlow('middle', 'boom'), boomFlow]],
      ['cancelling', parentFlow('main', 'waiter'), [waiterFlow]],
      ['thinking', agentFlow, []],
      ['sessions', { ...parentFlow('main', 'boom'), nodes: parentFlow('main', 'boom').nodes.map((n) => (n.id === 'sub' ? node({ id: 'sub', type: 'subflow', inputs: ['input', 'child_session_id'], outputs: ['output'], data: { subflowId: 'boom', pinDefaults: { child_session_id: 'side-session' } } }) : n)) }, [boomFlow]],
      ['namespaced', parentFlow('main', 'namespaced@1.0.0:middle'), [{ ...parentFlow('middle', ''), nodes: parentFlow('middle', '').nodes.map((n) => (n.id === 'sub' ? { ...n, data: { ...n.data, subflowId: undefined, workflowId: 'namespaced:boom' } } : n)) }, boomFlow]],
    ] as const) {
      const res = await upload(id, flow, [...subs]);
      expect(res.statusCode, res.body).to.equal(201);
    }
  });
  after(() => k?.stop());

  it("a failed child resumes its parent with the origin's payload; the subflow's output is null and the parent completes, listing the failure", async () => {
    const parentId = await start('direct');
    const parent = await finished(parentId);
    expect(parent.status).to.equal('completed');
    expect(parent.output).to.deep.equal({ response: null, child: { result: null, success: false, error: BOOM_ERROR }, detail: null, success: true });

    const items = await api.ledger(parentId);
    const childId = subRunOf(items, 'sub');
    const child = await getRun(childId);
    expect(child).to.deep.include({ status: 'failed', error: BOOM_ERROR, parent_run_id: parentId });
    const resume = items.find((i) => i.effect?.type === 'resume')!;
    expect(resume.node_id).to.equal('sub');
    expect(resume.effect!.payload.payload).to.deep.equal({ sub_run_id: childId, output: { result: null, success: false, error: BOOM_ERROR } });
    const failure = { run_id: childId, parent_run_id: parentId, workflow_id: 'direct@1.0.0:boom', status: 'failed', error: BOOM_ERROR };
    expect(resume.result).to.deep.equal({ resumed: true, child_failures: [failure] });
    expect(parent.child_failures).to.deep.equal([failure]);
  });

  it('a grandchild that fails shows on the root even though the root and the child both complete with success: true', async () => {
    const rootId = await start('nested');
    const root = await finished(rootId);
    expect(root.status).to.equal('completed');
    expect(root.output).to.deep.include({ success: true });

    const middleId = subRunOf(await api.ledger(rootId), 'sub');
    const middle = await getRun(middleId);
    expect(middle.status).to.equal('completed');
    expect(middle.output).to.deep.include({ response: null, success: true });
    const grandchildId = subRunOf(await api.ledger(middleId), 'sub');
    expect((await getRun(grandchildId)).status).to.equal('failed');

    const failure = { run_id: grandchildId, parent_run_id: middleId, workflow_id: 'nested@1.0.0:boom', status: 'failed', error: BOOM_ERROR };
    expect(middle.child_failures).to.deep.equal([failure]);
    expect(root.child_failures).to.deep.equal([failure]);
    // The root's resume record says so too, although the child it resumed from completed.
    const resume = (await api.ledger(rootId)).find((i) => i.effect?.type === 'resume')!;
    expect((resume.effect!.payload.payload as { output: Record<string, unknown> }).output).to.deep.include({ success: true });
    expect(resume.result).to.deep.equal({ resumed: true, child_failures: [failure] });
  });

  it('a cancelled child resumes its parent with cancelled: true, and the parent lists it', async () => {
    const parentId = await start('cancelling');
    const waiting = await until(() => api.ledger(parentId), { ok: (items) => items.some((i) => i.status === 'waiting'), deadline: 60_000, what: 'the parent to wait on its child' });
    const childId = subRunOf(waiting, 'sub');
    await until(() => getRun(childId), { ok: (r) => r.status === 'waiting', deadline: 60_000, what: 'the child to wait for its answer' });
    await api.command(childId, 'cancel', { reason: 'not needed' });

    const parent = await finished(parentId);
    expect(parent.status).to.equal('completed');
    expect(parent.output).to.deep.include({ response: null, child: { result: null, success: false, cancelled: true, error: 'not needed' } });
    expect(parent.child_failures).to.deep.equal([{ run_id: childId, parent_run_id: parentId, workflow_id: 'cancelling@1.0.0:waiter', status: 'cancelled', error: 'not needed' }]);
  });

  it("an agent whose child run fails answers '' with success: true as the origin does; the parent's row lists the failed child", async () => {
    // A provider no engine serves: the agent's child run fails at its first model call.
    const parentId = await start('thinking', { _runtime: { provider: 'nowhere', model: 'nothing' } });
    const parent = await finished(parentId);
    expect(parent.status).to.equal('completed');
    expect(parent.output).to.deep.equal({ response: '', success: true });
    const childId = subRunOf(await api.ledger(parentId), 'think');
    const child = await getRun(childId);
    expect(child.status).to.equal('failed');
    expect(parent.child_failures).to.deep.equal([{ run_id: childId, parent_run_id: parentId, workflow_id: child.workflow_id, status: 'failed', error: child.error }]);
    expect(child.error).to.be.a('string').and.not.equal('');
  });

  it('a subflow may name its own bundle\'s flow namespaced (bundle@version:flow, bundle:flow) or through the legacy workflowId', async () => {
    const rootId = await start('namespaced');
    const root = await finished(rootId);
    expect(root.status).to.equal('completed');
    const middleId = subRunOf(await api.ledger(rootId), 'sub');
    expect((await getRun(middleId)).workflow_id).to.equal('namespaced@1.0.0:middle');
    const grandchildId = subRunOf(await api.ledger(middleId), 'sub');
    expect(await getRun(grandchildId)).to.deep.include({ workflow_id: 'namespaced@1.0.0:boom', status: 'failed' });
    expect(root.child_failures.map((f) => f.run_id)).to.deep.equal([grandchildId]);
  });

  it('a child runs in the session its child_session_id pin names, else in its parent\'s', async () => {
    const parentId = await start('sessions');
    await finished(parentId);
    const child = await getRun(subRunOf(await api.ledger(parentId), 'sub'));
    expect(child.session_id).to.equal('side-session');
    const plainParent = await start('direct');
    await finished(plainParent);
    expect((await getRun(subRunOf(await api.ledger(plainParent), 'sub'))).session_id).to.equal((await getRun(plainParent)).session_id);
  });

  it("a subflow naming a flow the bundle lacks is refused at upload with the packer's sentence (400), also a subflow node without an id", async () => {
    const missing = await upload('ghostly', parentFlow('main', 'ghost'), []);
    expect(missing.statusCode).to.equal(400);
    expect(missing.json<{ detail: unknown }>().detail).to.deep.include({ message: "Invalid bundle: Missing referenced subflows in flows_dir: ['ghost'] (add those flows to the bundle, or point the subflow nodes at flows it holds)." });

    const noId = parentFlow('main', '');
    const both = await upload('ghostly', noId, [parentFlow('other', 'phantom')]);
    expect(both.statusCode).to.equal(400);
    // Only what the entrypoint reaches counts: the unreferenced flow `other` naming `phantom` is not followed.
    expect(JSON.stringify(both.json())).to.contain("Missing referenced subflows in flows_dir: ['<missing-subflow-id:main:sub>']");

    // A subflow node no exec edge reaches is not checked (the packer follows exec edges), and a flow may start itself.
    const unreachable = parentFlow('main', 'main');
    unreachable.nodes.push(node({ id: 'stray', type: 'subflow', inputs: [], outputs: ['output'], data: { subflowId: 'ghost' } }));
    expect((await upload('ghostly', unreachable, [])).statusCode).to.equal(201);
  });

  it("a bundle put in the shared folder whose subflow names a missing flow fails the parent with the origin's text", async () => {
    const dir = path.join(k.dataDir, 'plugins', 'gateway-runs', 'bundles');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'haunted@1.0.0.flow'), bundle('haunted', '1.0.0', parentFlow('main', 'ghost')));
    const parentId = await start('haunted');
    const parent = await finished(parentId);
    expect(parent).to.deep.include({ status: 'failed', error: "Workflow 'ghost' not found in registry" });
    const items = await api.ledger(parentId);
    const sub = items.filter((i) => i.node_id === 'sub' && i.effect?.type === 'start_subworkflow');
    expect(sub.map((i) => i.status)).to.deep.equal(['started', 'failed']);
    expect(sub[1]!.error).to.equal("Workflow 'ghost' not found in registry");
    expect(items.at(-1)!.effect).to.deep.include({ type: 'emit_event', payload: { name: 'abstract.status', scope: 'session', payload: { text: 'failed' } } });
  });
});

describe('flow control: child failures kept within limits.maxChildFailuresListed', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxChildFailuresListed: 2 } } }] });
  });
  after(() => k?.stop());

  it('a loop of failing subflows lists only the first ones on the run row', async () => {
    const looping = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'each', type: 'loop', inputs: ['items'], outputs: ['item'], data: { pinDefaults: { items: [1, 2, 3, 4] } } }),
        node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'boom' } }),
        node({ id: 'end', type: 'on_flow_end', inputs: [] }),
      ],
      edges: edges('start -> each', 'each:loop -> sub', 'each:done -> end'),
    };
    const body = multipart({}, { name: 'loops.flow', bytes: bundle('loops', '1.0.0', looping, [boomFlow]) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    const id = await api.startRun('loops', {});
    const run = (await until(() => api.getRun(id), { ok: ended, deadline: 90_000, what: 'the loop to end' })) as Run;
    expect(run.status).to.equal('completed');
    const children = (await api.ledger(id)).filter((i) => i.effect?.type === 'resume');
    expect(children).to.have.length(4);
    expect(run.child_failures).to.have.length(2);
    expect(run.child_failures.map((f) => f.run_id)).to.deep.equal(children.slice(0, 2).map((r) => (r.effect!.payload.payload as { sub_run_id: string }).sub_run_id));
  });
});
