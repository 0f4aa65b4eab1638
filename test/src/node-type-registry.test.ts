/**
 * Extension points between plugins (issue 10 item 3): a plugin provides several tokens, and
 * gateway-runs' node types are a registry other plugins add to. A flow naming a node type that no
 * loaded plugin provides fails at once naming the node, its type and, when known, the plugin.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';
import {
  halfExportPlugin, lateNodesPlugin, llmCallClaimPlugin, tallyReaderPlugin, textNodesCopyPlugin, textNodesPlugin, vocabularyRivalPlugin,
} from './fixtures/text-nodes-plugin.js';

/** start → tally (an effect node of text-nodes) → end, with reverse_text (a pure node of text-nodes) feeding the end. */
const textFlow = {
  id: 'text',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['text', 'label'] }),
    node({ id: 'rev', type: 'reverse_text', exec: false, inputs: ['text'], outputs: ['result'] }),
    node({ id: 'count_it', type: 'tally', inputs: ['label'], outputs: ['count', 'tallied'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['reversed', 'tallied', 'count'] }),
  ],
  edges: edges('start -> count_it', 'count_it -> end', 'start.text -> rev.text', 'start.label -> count_it.label', 'rev.result -> end.reversed', 'count_it.tallied -> end.tallied', 'count_it.count -> end.count'),
};

/** start → generate_image → end: the vision plugin's node type. */
const imageFlow = {
  id: 'image',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
    node({ id: 'paint', type: 'generate_image', inputs: ['prompt'], outputs: ['image'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['image'] }),
  ],
  edges: edges('start -> paint', 'paint -> end', 'start.prompt -> paint.prompt', 'paint.image -> end.image'),
};

/** start → flaky (fails its first `failures` attempts) → end with its attempts. */
const flakyFlow = {
  id: 'flaky',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['label', 'failures'] }),
    node({ id: 'shaky', type: 'flaky', inputs: ['label', 'failures'], outputs: ['attempts'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['attempts'] }),
  ],
  edges: edges('start -> shaky', 'shaky -> end', 'start.label -> shaky.label', 'start.failures -> shaky.failures', 'shaky.attempts -> end.attempts'),
};

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

async function bootError(plugins: NonNullable<Parameters<typeof createTestKernel>[0]>['plugins']): Promise<string> {
  let kernel: TestKernel | undefined;
  try {
    kernel = await createTestKernel({ plugins });
  } catch (err) {
    return (err as Error).message;
  }
  await kernel.stop();
  throw new Error('expected the kernel to refuse to boot');
}

describe('node types contributed by other plugins', function () {
  this.timeout(180_000);

  describe('with the text-nodes plugin loaded', () => {
    let k: TestKernel;
    const api = gatewayRuns(() => k);
    before(async () => {
      k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, textNodesPlugin, tallyReaderPlugin] });
      await api.uploadBundle('text', textFlow);
    });
    after(() => k?.stop());

    it("runs a flow using its pure and its effect node to completion with the nodes' outputs", async () => {
      const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'text', input_data: { text: 'keel', label: 'apples' } } });
      expect(start.statusCode).to.equal(200);
      const runId = start.json<{ run_id: string }>().run_id;
      const run = await until(() => api.getRun(runId), ended, 60_000);
      expect(run.status, String(run.error)).to.equal('completed');
      expect(run.output).to.deep.include({ reversed: 'leek', tallied: 'apples#1', count: 1, success: true });
      // The effect node was performed once, durably: a started and a completed record with its payload and result.
      const records = (await api.ledger(runId)).filter((r) => r.node_id === 'count_it');
      expect(records.map((r) => [r.status, r.effect?.type])).to.deep.equal([['started', 'tally'], ['completed', 'tally']]);
      expect(records[0]!.effect!.payload).to.deep.equal({ label: 'apples' });
      expect(records[1]!.result).to.deep.equal({ count: 1, label: 'apples' });
    });

    it('a plugin providing two tokens: a third plugin resolves both', async () => {
      const res = await k.inject({ url: '/tally' });
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.equal({ counts: { apples: 1 }, words: ['reverse_text', 'tally', 'flaky'] });
    });
  });

  describe("a contributed effect under the runtime's retry policy", () => {
    let k: TestKernel;
    const api = gatewayRuns(() => k);
    before(async () => {
      k = await createTestKernel({
        plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { retry: { backoffBaseMs: 0, maxAttempts: { flaky: 2 } } } }, textNodesPlugin],
      });
      await api.uploadBundle('flaky', flakyFlow);
    });
    after(() => k?.stop());

    const runOf = async (inputData: Record<string, unknown>) => {
      const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'flaky', input_data: inputData } });
      expect(start.statusCode).to.equal(200);
      return until(() => api.getRun(start.json<{ run_id: string }>().run_id), ended, 60_000);
    };

    it('gets retry.maxAttempts[<type>] attempts, each with its own records', async () => {
      const run = await runOf({ label: 'once', failures: 1 });
      expect(run.status, String(run.error)).to.equal('completed');
      expect(run.output).to.deep.include({ attempts: 2 });
      const records = (await api.ledger(run.run_id)).filter((r) => r.node_id === 'shaky');
      expect(records.map((r) => [r.attempt, r.status])).to.deep.equal([[1, 'started'], [1, 'failed'], [2, 'started'], [2, 'completed']]);
      expect(records[1]!.error).to.equal("flaky 'once' failed attempt 1");
    });

    it("fails the run with the plugin's error once the attempts are spent", async () => {
      const run = await runOf({ label: 'always', failures: 5 });
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal("flaky 'always' failed attempt 2 (gave up after 2 attempts)");
    });
  });

  describe('without the plugin that provides a node type', () => {
    let k: TestKernel;
    const api = gatewayRuns(() => k);
    before(async () => {
      k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
      await api.uploadBundle('text', textFlow);
      await api.uploadBundle('image', imageFlow);
    });
    after(() => k?.stop());

    const runOf = async (bundleId: string) => {
      const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: { text: 'keel', prompt: 'a boat' } } });
      expect(start.statusCode).to.equal(200);
      return until(() => api.getRun(start.json<{ run_id: string }>().run_id), ended, 60_000);
    };

    it('fails the run at once naming the node and its type, before any node runs', async () => {
      const run = await runOf('text');
      expect(run.status).to.equal('failed');
      // Every node the run may reach is named at once (issue 13 item 5).
      expect(run.error).to.equal("2 nodes of this flow have types no loaded plugin provides: node 'count_it' has type 'tally' (no loaded plugin provides it); node 'rev' has type 'reverse_text' (no loaded plugin provides it).");
      const items = await api.ledger(run.run_id);
      expect(items.filter((r) => r.effect?.type === 'tally')).to.deep.equal([]);
    });

    it('names the Keel plugin known to provide an origin node type (generate_image → vision)', async () => {
      const run = await runOf('image');
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal("node 'paint' has type 'generate_image', which the 'vision' plugin provides; that plugin is not loaded (add it to the config's plugins).");
    });
  });

  describe('boot errors', () => {
    const base = [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin];

    it('a node type registered by two plugins names both', async () => {
      const message = await bootError([...base, textNodesPlugin, textNodesCopyPlugin]);
      expect(message).to.contain("node type 'reverse_text' is registered by both 'text-nodes' and 'text-nodes-copy'");
    });

    it("a node type gateway-runs runs itself cannot be taken over", async () => {
      const message = await bootError([...base, llmCallClaimPlugin]);
      expect(message).to.contain("node type 'llm_call' is registered by both 'gateway-runs' and 'llm-call-claim'");
    });

    it('registering a node type after the kernel started is refused', async () => {
      const message = await bootError([...base, lateNodesPlugin]);
      expect(message).to.contain("plugin 'late-nodes' registered node types after the kernel started; register them in setup.");
    });

    it('a token provided in two records names both plugins', async () => {
      const message = await bootError([...base, textNodesPlugin, vocabularyRivalPlugin]);
      expect(message).to.contain("token 'test.vocabulary' is provided by both 'text-nodes' and 'vocabulary-rival'");
    });

    it('the node-type registry without gateway-runs is a missing provider, named', async () => {
      const message = await bootError([inferencePlugin, ledgerPlugin, workspacesPlugin, textNodesPlugin]);
      expect(message).to.contain("plugin 'text-nodes' needs token 'gateway-runs.node-types' (deps.nodeTypes), which no loaded plugin provides");
    });

    it('a declared token missing from exports names the plugin and the entry', async () => {
      const message = await bootError([halfExportPlugin]);
      expect(message).to.contain("plugin 'half-export' provides token 'test.vocabulary' (provides.vocabulary), but its setup returned no exports.vocabulary");
    });
  });
});
