/**
 * The node-type extension points other plugins build issue 13's nodes on, through the HTTP API: a
 * pure node reads the run's variables and account (`PureScope`), an effect node sees the run's
 * session, actor and variables (a copy) and changes the run's context from its recorded result
 * (`applyToRun`), and an unrecorded node (`recorded: false`) writes no ledger records and fails as a
 * plain exec node (`NodeFailure`: the run completes with the failure record and the node).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';
import { extensionNodesPlugin, squareCalls } from './fixtures/extension-nodes-plugin.js';

/** start → sq (unrecorded) → keep (applyToRun) → end; read_run and get_context feed the end. */
const extensionFlow = {
  id: 'ext',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['n', 'note'] }),
    node({ id: 'sq', type: 'square', inputs: ['n'], outputs: ['result'] }),
    node({ id: 'keep', type: 'remember', inputs: ['note'], outputs: ['note', 'session', 'actor', 'workflow', 'parent', 'saw_note_var'] }),
    node({ id: 'read', type: 'read_run', exec: false, inputs: ['name'], outputs: ['value', 'account', 'run_id'], data: { pinDefaults: { name: 'note' } } }),
    node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['squared', 'kept', 'session', 'saw', 'var_note', 'account', 'run_id', 'messages'] }),
  ],
  edges: edges(
    'start -> sq', 'sq -> keep', 'keep -> end',
    'start.n -> sq.n', 'start.note -> keep.note',
    'sq.result -> end.squared', 'keep.note -> end.kept', 'keep.session -> end.session', 'keep.saw_note_var -> end.saw',
    'read.value -> end.var_note', 'read.account -> end.account', 'read.run_id -> end.run_id', 'ctx.messages -> end.messages',
  ),
};

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

describe('node-type extension points (scope, applyToRun, unrecorded nodes)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  const start = async (input: Record<string, unknown>) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'ext', input_data: input, session_id: 'sess-ext' } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    return { runId, run: await until(() => api.getRun(runId), ended, 60_000) };
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, extensionNodesPlugin] });
    await api.uploadBundle('ext', extensionFlow);
  });
  after(() => k?.stop());

  it('gives pure nodes the run (variables, account, id) and effect nodes its session and a copy of its variables', async () => {
    const { runId, run } = await start({ n: 7, note: 'tea at five' });
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.output).to.deep.include({ squared: 49, kept: 'tea at five', session: 'sess-ext', saw: 'tea at five', var_note: 'tea at five', run_id: runId, success: true });
    expect(run.output!.account).to.be.a('string').and.not.equal('');
  });

  it('applies the recorded result to the run (context.messages) when it lands on the node', async () => {
    const { run } = await start({ n: 2, note: 'remember the milk' });
    expect(run.output!.messages).to.deep.equal([{ role: 'system', content: '[NOTE] remember the milk', metadata: { node_id: 'keep' } }]);
  });

  it("counts what applyToRun added against the run's variable limit (a small result, a large change)", async () => {
    const growFlow = {
      id: 'grow',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: ['bytes'] }),
        node({ id: 'g', type: 'grow', inputs: ['bytes'], outputs: ['bytes'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['bytes'] }),
      ],
      edges: edges('start -> g', 'g -> end', 'start.bytes -> g.bytes', 'g.bytes -> end.bytes'),
    };
    await api.uploadBundle('grow', growFlow);
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'grow', input_data: { bytes: 17 * 1024 * 1024 } } });
    const run = await until(() => api.getRun(res.json<{ run_id: string }>().run_id), ended, 60_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/variables grew larger than 16 MiB at node 'g'/);
  });

  it('writes no ledger record for an unrecorded node, only for the recorded one', async () => {
    const { runId, run } = await start({ n: 3, note: 'n' });
    expect(run.status).to.equal('completed');
    const nodes = (await api.ledger(runId)).filter((r) => r.node_id === 'sq' || r.node_id === 'keep').map((r) => `${r.node_id}:${r.status}`);
    expect(nodes).to.deep.equal(['keep:started', 'keep:completed']);
  });

  it('ends the run completed with the failure record and the node when an unrecorded node throws NodeFailure', async () => {
    const before = squareCalls.count;
    const { runId, run } = await start({ n: -2, note: 'never kept' });
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.equal({ success: false, output: null, result: null, error: 'negative input -2', node: 'sq' });
    expect(squareCalls.count).to.equal(before + 1);
    // Nothing after the failing node ran.
    expect((await api.ledger(runId)).filter((r) => r.node_id === 'keep')).to.have.length(0);
  });

  it('treats any other error of an unrecorded node the same way (success false, its message, the node)', async () => {
    const { run } = await start({ n: 13, note: 'x' });
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.equal({ success: false, error: 'thirteen is unlucky', node: 'sq' });
  });
});
