import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { requireStoriesModel, storiesDir } from './helpers/shared-models.js';
import { EndlessEndpoint } from './helpers/endless-endpoint.js';
import { json, openSse } from './helpers/sse.js';
import { until } from './helpers/until.js';

describe('cancel really stops the work: an in-flight LLM call is aborted in the engine (real story model)', function () {
  let k: TestKernel;
  let url: string;
  before(async function () {
    k = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { modelsDirs: [storiesDir] } }, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    url = (await k.listen()).url;
    const flow = {
      id: 'story',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'tell', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Once upon a time', temperature: 0 } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> tell', 'tell -> end', 'tell.response -> end.response'),
    };
    const body = multipart({}, { name: 'story.flow', bytes: bundle('story', '1.0.0', flow) });
    await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
  });
  after(() => k?.stop());

  // Needs a generation long enough to cancel in the middle: the tiny chat model's answers are too short.
  it('cancels mid-generation: few deltas, a cancelled end, the ledger says it stopped in flight', async function () {
    requireStoriesModel(this);
    const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'story', input_data: { _runtime: { provider: 'local', model: 'stories260K', stream: true } } } });
    const runId = start.json<{ run_id: string }>().run_id;
    const stream = await openSse(`${url}/api/gateway/runs/${runId}/ledger/stream`, { token: k.adminToken });
    await stream.collect({ until: (s) => s.named('llm.delta').length > 0, deadline: 60_000, what: 'the first delta' });
    await k.inject({ method: 'POST', url: '/api/gateway/commands', token: k.adminToken, payload: { command_id: 'stop-story', run_id: runId, type: 'cancel', payload: { reason: 'enough' } } });
    await stream.collect({ until: () => false, deadline: 60_000, what: 'the end of the cancelled run stream' });
    const deltas = stream.named('llm.delta');
    const end = stream.named('llm.delta_end')[0];
    expect(deltas.length).to.be.greaterThan(0).and.below(200);
    expect(json(end!)).to.include({ reason: 'cancelled' });
    expect(stream.last!.event).to.equal('done');
    const run = (await k.inject({ url: `/api/gateway/runs/${runId}`, token: k.adminToken })).json<{ status: string; error: string }>();
    expect(run).to.include({ status: 'cancelled', error: 'enough' });
    const items = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger`, token: k.adminToken })).json<{ items: Array<{ status: string; effect: { type: string } | null; result: Record<string, unknown> | null; error: string | null }> }>().items;
    const call = items.find((i) => i.effect?.type === 'llm_call' && i.status !== 'started')!;
    expect(call.status).to.equal('failed');
    expect(call.result).to.include({ cancelled: true, stopped_in_flight: true });
    expect(String(call.result!.partial_content).length).to.be.below(2000);
    // The engine is free again at once.
    const again = await k.inject({ method: 'POST', url: '/v1/completions', token: k.adminToken, payload: { model: 'local/stories260K', prompt: '', max_tokens: 5, temperature: 0 } });
    expect(again.json<{ choices: Array<{ text: string }> }>().choices[0]!.text).to.equal('Once upon a time,');
  });
});

describe('cancel really stops the work: an in-flight call to a remote endpoint is aborted (a scripted stand-in, no model)', function () {
  let k: TestKernel;
  let url: string;
  const endpoint = new EndlessEndpoint();
  before(async () => {
    const baseUrl = await endpoint.start();
    k = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl, models: ['endless'] }] } }, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    url = (await k.listen()).url;
    const flow = {
      id: 'talk',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'tell', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Talk forever', temperature: 0 } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> tell', 'tell -> end', 'tell.response -> end.response'),
    };
    const body = multipart({}, { name: 'talk.flow', bytes: bundle('talk', '1.0.0', flow) });
    await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
  });
  after(async () => {
    await k?.stop();
    await endpoint.stop();
  });

  it('cancels mid-stream: a cancelled end, the ledger says it stopped in flight, and the endpoint sees its client go', async () => {
    const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'talk', input_data: { _runtime: { provider: 'fake', model: 'endless', stream: true } } } });
    const runId = start.json<{ run_id: string }>().run_id;
    const stream = await openSse(`${url}/api/gateway/runs/${runId}/ledger/stream`, { token: k.adminToken });
    await stream.collect({ until: (s) => s.named('llm.delta').length > 0, deadline: 60_000, what: 'the first delta' });
    await k.inject({ method: 'POST', url: '/api/gateway/commands', token: k.adminToken, payload: { command_id: 'stop-talk', run_id: runId, type: 'cancel', payload: { reason: 'enough' } } });
    await stream.collect({ until: () => false, deadline: 60_000, what: 'the end of the cancelled run stream' });
    expect(json(stream.named('llm.delta_end')[0]!)).to.include({ reason: 'cancelled' });
    expect(stream.last!.event).to.equal('done');
    const run = (await k.inject({ url: `/api/gateway/runs/${runId}`, token: k.adminToken })).json<{ status: string; error: string }>();
    expect(run).to.include({ status: 'cancelled', error: 'enough' });
    const items = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger`, token: k.adminToken })).json<{ items: Array<{ status: string; effect: { type: string } | null; result: Record<string, unknown> | null }> }>().items;
    const call = items.find((i) => i.effect?.type === 'llm_call' && i.status !== 'started')!;
    expect(call.status).to.equal('failed');
    expect(call.result).to.include({ cancelled: true, stopped_in_flight: true });
    await until(() => endpoint.closed, { ok: (n) => n === 1, what: 'the endpoint to see its client go' });
  });
});
