/**
 * Staged answers (issue 21, runtime/effect-durability.ts) are shown with the run's next commit. A
 * contributed node whose work takes long and commits nothing before it (an unrecorded node such as
 * a code node or `write_pdf`, or one with local side effects such as a memory node that embeds)
 * must not hold back the answers given before it: a user told "working on it" sees that while the
 * work runs, as before the answers were staged.
 */
import { expect } from 'chai';
import { definePlugin } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { effectNode, gatewayRunsPlugin, nodeTypesToken } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem } from './helpers/gateway-runs.js';

/** A gate a node's work waits on until the test opens it, and a signal that the work began. */
class Gate {
  entered!: () => void;
  readonly began = new Promise<void>((resolve) => (this.entered = resolve));
  open!: () => void;
  readonly opened = new Promise<void>((resolve) => (this.open = resolve));
}
const gates: Record<string, Gate> = {};

/** Two slow contributed nodes: `slow_plain` writes no records (`recorded: false`), `slow_local` has local side effects. */
const slowNodesPlugin = definePlugin({
  id: 'slow-nodes',
  version: '0.1.0',
  sdk: '^1.0.0',
  deps: { nodeTypes: nodeTypesToken },
  setup: ({ deps }) => {
    const work = async ({ gate }: { gate: string }) => {
      gates[gate]!.entered();
      await gates[gate]!.opened;
      return { done: true };
    };
    deps.nodeTypes.register('slow-nodes', {
      slow_plain: { ...effectNode<{ gate: string }, { done: boolean }>({ payload: (inputs) => ({ gate: String(inputs.gate) }), perform: work }), recorded: false },
      slow_local: effectNode<{ gate: string }, { done: boolean }>({ payload: (inputs) => ({ gate: String(inputs.gate) }), perform: work, sideEffects: 'local' }),
    });
    return {};
  },
});

/** start -> a1 (answer) -> slow (the node type, its gate from the input) -> a2 (answer) -> end. */
function slowFlow(id: string, type: string) {
  return {
    id,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['gate'] }),
      node({ id: 'a1', type: 'answer_user', inputs: ['message'], data: { pinDefaults: { message: 'working on it' } } }),
      node({ id: 'slow', type, inputs: ['gate'], outputs: ['done'] }),
      node({ id: 'a2', type: 'answer_user', inputs: ['message'], data: { pinDefaults: { message: 'done' } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'ok' } } }),
    ],
    edges: edges('start -> a1', 'a1 -> slow', 'slow -> a2', 'a2 -> end', 'start.gate -> slow.gate'),
  };
}

const answers = (items: LedgerItem[]) => items.filter((r) => r.effect?.type === 'answer_user').map((r) => [r.node_id, r.status]);

describe('durable21 attack: a slow contributed node does not hold back the answers staged before it', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, slowNodesPlugin] });
    await api.uploadBundle('slow-plain', slowFlow('slow-plain', 'slow_plain'));
    await api.uploadBundle('slow-local', slowFlow('slow-local', 'slow_local'));
  });
  after(async () => {
    for (const gate of Object.values(gates)) gate.open();
    await k?.stop();
  });

  for (const [bundleId, what] of [['slow-plain', 'an unrecorded node'], ['slow-local', 'a node with local side effects']] as const) {
    it(`the answer before ${what} is in the ledger while its work runs; the run then completes with both`, async () => {
      const gate = (gates[bundleId] = new Gate());
      const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: { gate: bundleId } } });
      expect(res.statusCode, res.body).to.equal(200);
      const runId = res.json<{ run_id: string }>().run_id;
      await gate.began;
      // The work is held: only a commit before it can show the answer.
      const during = await until(() => api.ledger(runId), { what: `the first answer of ${runId} to be shown while the slow node works`, ok: (items) => answers(items).length >= 2, deadline: 20_000 });
      expect(answers(during)).to.deep.equal([['a1', 'started'], ['a1', 'completed']]);
      gate.open();
      const run = await until(() => api.getRun(runId), { what: `run ${runId} to end`, ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status), deadline: 60_000 });
      expect(run.status, run.error ?? '').to.equal('completed');
      const items = await api.ledger(runId);
      expect(items.slice(0, during.length)).to.deep.equal(during);
      expect(answers(items)).to.deep.equal([['a1', 'started'], ['a1', 'completed'], ['a2', 'started'], ['a2', 'completed']]);
      expect(items.map((r) => r.cursor)).to.deep.equal(items.map((_, i) => i + 1));
    });
  }
});
