/**
 * Where errors surface (issue 13 item 5, reference runtime-nodes §2 rule 5), through the HTTP API:
 * a flow with several node types no loaded plugin provides names all of them at start, and the
 * failed record carries the first of those nodes (not the entry); an error read into an effect
 * node fails the run `<ExceptionType>: <message>` with the origin's `system:tick_exception:<run>`
 * record, while the same error read into a plain node completes the run `{success: false, error, node}`.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

/** Two concat nodes feeding each other (a data cycle: reading either throws), read by `consumer`. */
function cycleInto(consumer: ReturnType<typeof node>, pin: string) {
  return {
    id: 'main',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: [] }),
      node({ id: 'left', type: 'concat', exec: false, inputs: ['a', 'b'], outputs: ['result'] }),
      node({ id: 'right', type: 'concat', exec: false, inputs: ['a', 'b'], outputs: ['result'] }),
      consumer,
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> use', 'use -> end', 'left.result -> right.a', 'right.result -> left.a', `right.result -> use.${pin}`),
  };
}

describe('flow control: where errors surface (item 5, RN §2 rule 5)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  const run = async (bundleId: string, flow: Parameters<ReturnType<typeof gatewayRuns>['uploadBundle']>[1]) => {
    await api.uploadBundle(bundleId, flow);
    const id = await api.startRun(bundleId, {});
    return { id, run: await until(() => api.getRun(id), { ok: ended, deadline: 90_000, what: `run ${id} to end` }), ledger: await api.ledger(id) };
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  it('names every unsupported node at start (generate_music as the voice plugin\'s), the failed record on the first of them', async () => {
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'warp', type: 'quantum_teleport', inputs: [], outputs: [] }),
        node({ id: 'song', type: 'generate_music', inputs: ['prompt'], outputs: ['music_artifact'] }),
        node({ id: 'sound', type: 'sound_check', exec: false, inputs: [], outputs: ['result'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> warp', 'warp -> song', 'song -> end', 'sound.result -> end.response'),
    };
    const { run: r, ledger } = await run('unsupported', flow);
    expect(r.status).to.equal('failed');
    const names = ["node 'warp' has type 'quantum_teleport' (no loaded plugin provides it)", "node 'song' has type 'generate_music' (the 'voice' plugin provides it; add that plugin to the config's plugins)", "node 'sound' has type 'sound_check' (no loaded plugin provides it)"];
    expect(r.error).to.match(/^3 nodes of this flow have types no loaded plugin provides: /);
    for (const name of names) expect(r.error).to.contain(name);
    const failed = ledger.filter((i) => i.status === 'failed');
    expect(failed).to.have.length(1);
    expect(failed[0]).to.deep.include({ error: r.error, effect: null });
    expect(['warp', 'song', 'sound']).to.include(failed[0]!.node_id);
  });

  it('one unsupported node keeps its sentence, and the failed record names it, not the entry', async () => {
    const flow = {
      id: 'main',
      nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'song', type: 'generate_music', inputs: [], outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: [] })],
      edges: edges('start -> song', 'song -> end'),
    };
    const { run: r, ledger } = await run('music', flow);
    expect(r.error).to.equal("node 'song' has type 'generate_music', which the 'voice' plugin provides; that plugin is not loaded (add it to the config's plugins).");
    expect(ledger.find((i) => i.status === 'failed')!.node_id).to.equal('song');
  });

  it('an error read into an effect node fails the run as a tick exception', async () => {
    const { id, run: r, ledger } = await run('into-effect', cycleInto(node({ id: 'use', type: 'answer_user', inputs: ['message'], outputs: ['message'] }), 'message'));
    expect(r.status).to.equal('failed');
    expect(r.error).to.match(/^Error: .*cycle/);
    const failed = ledger.filter((i) => i.status === 'failed');
    expect(failed).to.have.length(1);
    expect(failed[0]).to.deep.include({ node_id: 'use', effect: null, error: r.error, idempotency_key: `system:tick_exception:${id}` });
    expect(ledger.some((i) => i.effect?.type === 'answer_user')).to.equal(false);
    expect(ledger.at(-1)!.effect).to.deep.include({ type: 'emit_event', payload: { name: 'abstract.status', scope: 'session', payload: { text: 'failed' } } });
  });

  it('an emit_event without a name fails the run with ValueError (a tick exception)', async () => {
    const flow = {
      id: 'main',
      nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'emit', type: 'emit_event', inputs: ['name'], outputs: [], data: { pinDefaults: { name: '  ' } } }), node({ id: 'end', type: 'on_flow_end', inputs: [] })],
      edges: edges('start -> emit', 'emit -> end'),
    };
    const { id, run: r, ledger } = await run('nameless', flow);
    expect(r).to.deep.include({ status: 'failed', error: "ValueError: emit_event node 'emit' missing event name" });
    expect(ledger.find((i) => i.status === 'failed')).to.deep.include({ node_id: 'emit', idempotency_key: `system:tick_exception:${id}` });
  });

  it('the same error read into a plain node completes the run with success: false and that node', async () => {
    const { run: r, ledger } = await run('into-plain', cycleInto(node({ id: 'use', type: 'set_var', inputs: ['name', 'value'], outputs: ['value'], data: { pinDefaults: { name: 'x' } } }), 'value'));
    expect(r.status).to.equal('completed');
    expect(r.output).to.deep.include({ success: false, node: 'use' });
    expect(String(r.output!.error)).to.match(/cycle/);
    expect(ledger.some((i) => i.status === 'failed')).to.equal(false);
  });
});
