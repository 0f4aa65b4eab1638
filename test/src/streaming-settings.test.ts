import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { json, readSse } from './helpers/sse.js';

describe('streaming rules: agents.streaming_default and a node that turns streaming off (seed §6 rules 1 and 5)', () => {
  let k: TestKernel;
  let url: string;
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { streamingDefault: true } }] });
    url = (await k.listen()).url;
    const flow = {
      id: 'quiet',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Hello!', temperature: 0 }, effectConfig: { stream: false } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> ask', 'ask -> end', 'ask.response -> end.response'),
    };
    const body = multipart({}, { name: 'quiet.flow', bytes: bundle('quiet', '1.0.0', flow) });
    await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
  });
  after(() => k.stop());

  const events = async (runId: string) => {
    const stream = await readSse(`${url}/api/gateway/runs/${runId}/ledger/stream`, { token: k.adminToken, deadline: 60_000 });
    return stream.events.map((e) => ({ event: e.event, data: json(e) }));
  };
  const start = async (payload: Record<string, unknown>) => (await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload })).json<{ run_id: string }>().run_id;

  it('streams a run whose start omits _runtime.stream when the default is on, and not one that says false', async () => {
    const on = await events(await start({ bundle_id: 'keel-chat', input_data: { prompt: 'Hi!' } }));
    expect(on.filter((e) => e.event === 'llm.delta').map((e) => e.data.text).join('')).to.equal('Hi! How can I help you today?');
    const off = await events(await start({ bundle_id: 'keel-chat', input_data: { prompt: 'Hi!', _runtime: { stream: false } } }));
    expect(off.some((e) => e.event.startsWith('llm.'))).to.equal(false);
    expect(off.at(-1)!.event).to.equal('done');
  });

  it('never applies the default to a schedule: its launched run, whose inputs omit _runtime.stream, sends no deltas', async () => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: k.adminToken, payload: { bundle_id: 'keel-chat', input_data: { prompt: 'Hi!' } } });
    expect(res.statusCode, res.body).to.equal(200);
    // A one-shot schedule: the parent ends once its launched run has; its stream carries that run's deltas too (seed §6 rule 6).
    const parentId = res.json<{ run_id: string }>().run_id;
    const parent = await events(parentId);
    expect(parent.filter((e) => e.event.startsWith('llm.'))).to.deep.equal([]);
    const children = (await k.inject({ url: `/api/gateway/runs?parent_run_id=${parentId}`, token: k.adminToken })).json<{ items: Array<{ run_id: string; status: string }> }>().items;
    expect(children.map((c) => c.status)).to.deep.equal(['completed']);
    const child = await events(children[0]!.run_id);
    const answered = child.some((e) => e.event === 'step' && (e.data.effect as { type: string } | null)?.type === 'llm_call' && e.data.status === 'completed');
    expect(answered, 'the launched run made its LLM call').to.equal(true);
    expect(child.filter((e) => e.event.startsWith('llm.'))).to.deep.equal([]);
    expect(child.at(-1)!.event).to.equal('done');
  });

  it('ends a call whose node turned streaming off with reason unavailable, detail node_stream_off, after its record', async () => {
    const all = await events(await start({ bundle_id: 'quiet' }));
    expect(all.filter((e) => e.event === 'llm.delta')).to.have.length(0);
    const endAt = all.findIndex((e) => e.event === 'llm.delta_end');
    expect(all[endAt]!.data).to.include({ reason: 'unavailable', detail: 'node_stream_off' });
    const recordAt = all.findIndex((e) => e.event === 'step' && e.data.status === 'completed' && (e.data.effect as { type: string } | null)?.type === 'llm_call');
    expect(endAt).to.be.greaterThan(recordAt);
  });
});
