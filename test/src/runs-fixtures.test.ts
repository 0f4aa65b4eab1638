import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { multipart } from './helpers/flow-builder.js';
import { until } from './helpers/until.js';
import { json, readSse } from './helpers/sse.js';
import { requireSharedFlow, sharedFlowsDir } from './helpers/shared-models.js';

const TINY = { provider: 'local', model: 'keel-tiny-chat' };

interface Run {
  run_id: string;
  workflow_id: string;
  status: string;
  parent_run_id: string | null;
  output: Record<string, unknown> | null;
}

describe('the real fixture bundles, end to end with the tiny model', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let url: string;
  // Each test needs real fixture bundles of ../shared and skips, naming the file, without them.
  before(async function () {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    url = (await k.listen()).url;
    for (const name of ['basic-agent@0.0.1', 'basic@dev', 'test@dev']) {
      if (!existsSync(path.join(sharedFlowsDir, `${name}.flow`))) continue;
      const body = multipart({}, { name: `${name}.flow`, bytes: readFileSync(path.join(sharedFlowsDir, `${name}.flow`)) });
      const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
      expect(res.statusCode, name).to.equal(201);
    }
  });
  after(() => k?.stop());

  const start = async (bundleId: string, input: Record<string, unknown>) =>
    (await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: input } })).json<{ run_id: string }>().run_id;
  const finished = async (id: string) => {
    return until(async () => (await k.inject({ url: `/api/gateway/runs/${id}`, token: k.adminToken })).json<Run>(), { ok: (run) => ['completed', 'failed', 'cancelled'].includes(run.status), deadline: 120_000, what: `run ${id} to finish` });
  };
  const children = async (id: string) => (await k.inject({ url: `/api/gateway/runs?parent_run_id=${id}`, token: k.adminToken })).json<{ items: Run[] }>().items;

  it('basic-agent: status subflows and the agent child run, answer in output.response', async function () {
    requireSharedFlow(this, 'basic-agent@0.0.1.flow');
    const id = await start('basic-agent', { prompt: 'What is the capital of Peru?', _runtime: TINY });
    const run = await finished(id);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.include({ response: 'The capital of Peru is Lima.', success: true });
    expect((run.output!.meta as Record<string, unknown>).schema).to.equal('abstractcode.agent.v1.meta');
    const kids = await children(id);
    expect(kids.map((c) => c.workflow_id).sort()).to.deep.equal(['basic-agent@0.0.1:15f19f7f', 'basic-agent@0.0.1:15f19f7f', 'visual_react_agent_basic-agent_0_0_1_81795ea9_node-2']); // the namespaced flow id, sanitised (formats page §1.4)
    expect(kids.every((c) => c.status === 'completed' && c.parent_run_id === id)).to.equal(true);
    const status = kids.find((c) => c.workflow_id.endsWith('15f19f7f'))!;
    const ledger = (await k.inject({ url: `/api/gateway/runs/${status.run_id}/ledger`, token: k.adminToken })).json<{ items: Array<{ status: string; effect: { type: string; payload: Record<string, unknown> } | null }> }>();
    expect(ledger.items[1]!.effect).to.deep.include({ type: 'emit_event' });
    expect(ledger.items[1]!.effect!.payload).to.deep.include({ name: 'abstract.status', scope: 'run' });
    // include_metrics totals the run and its sub-runs from their ledgers.
    const listed = (await k.inject({ url: '/api/gateway/runs?root_only=true&include_metrics=true', token: k.adminToken })).json<{ items: Array<Run & { steps: number; llm_calls: number; tokens_total: number; kind: string }> }>().items;
    const row = listed.find((r) => r.run_id === id)!;
    expect(row).to.include({ llm_calls: 1, kind: 'conversation' });
    expect(row.tokens_total).to.be.greaterThan(10);
    expect(row.steps).to.be.greaterThan(5);
    expect(listed.every((r) => r.parent_run_id === null)).to.equal(true);
  });

  it("basic-agent: the parent's stream carries the agent child's token deltas", async function () {
    requireSharedFlow(this, 'basic-agent@0.0.1.flow');
    const id = await start('basic-agent', { prompt: 'Count to ten.', _runtime: { ...TINY, stream: true } });
    const stream = await readSse(`${url}/api/gateway/runs/${id}/ledger/stream`, { token: k.adminToken, deadline: 120_000 });
    const deltas = stream.named('llm.delta').map((e) => json<{ run_id: string; root_run_id: string; parent_run_id: string; text: string }>(e));
    expect(deltas.length).to.be.greaterThan(3);
    expect(deltas.every((d) => d.run_id !== id && d.root_run_id === id && d.parent_run_id === id)).to.equal(true);
    expect(deltas.map((d) => d.text).join('')).to.equal('1, 2, 3, 4, 5, 6, 7, 8, 9, 10.');
    expect(stream.last!.event).to.equal('done');
  });

  it('runs a fixture unchanged when the inference config aliases the model it names', async function () {
    const fixture = requireSharedFlow(this, 'test@dev.flow');
    const aliased = await createTestKernel({
      plugins: [{ plugin: inferencePlugin, config: { aliases: { 'openai/gpt-5-mini': 'local/keel-tiny-chat' } } }, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin],
    });
    try {
      const body = multipart({}, { name: 'test@dev.flow', bytes: readFileSync(fixture) });
      await aliased.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: aliased.adminToken, payload: body.payload, headers: body.headers });
      const id = (await aliased.inject({ method: 'POST', url: '/api/gateway/runs/start', token: aliased.adminToken, payload: { bundle_id: 'test', input_data: { prompt: 'What is the capital of Norway?' } } })).json<{ run_id: string }>().run_id;
      const run = await until(async () => (await aliased.inject({ url: `/api/gateway/runs/${id}`, token: aliased.adminToken })).json<Run>(), (r) => ['completed', 'failed', 'cancelled'].includes(r.status), 120_000);
      expect(run.output).to.deep.include({ output: 'The capital of Norway is Oslo.', success: true });
      const viaV1 = await aliased.inject({ method: 'POST', url: '/v1/chat/completions', token: aliased.adminToken, payload: { model: 'openai/gpt-5-mini', messages: [{ role: 'user', content: 'Hi!' }], temperature: 0 } });
      expect(viaV1.json<{ choices: Array<{ message: { content: string } }> }>().choices[0]!.message.content).to.equal('Hi! How can I help you today?');
    } finally {
      await aliased.stop();
    }
  });

  it('basic@dev and test@dev: agent nodes with their own configs run to completion', async function () {
    requireSharedFlow(this, 'basic@dev.flow');
    requireSharedFlow(this, 'test@dev.flow');
    const basic = await finished(await start('basic', { prompt: 'Hello!', ...TINY }));
    expect(basic.status).to.equal('completed');
    expect(basic.output!.response).to.be.a('string').and.not.equal('');
    const test = await finished(await start('test', { prompt: 'What is the capital of Kenya?', _runtime: TINY }));
    expect(test.output).to.deep.include({ output: 'The capital of Kenya is Nairobi.', success: true });
  });
});
