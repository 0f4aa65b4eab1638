import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { requireSharedFlow } from './helpers/shared-models.js';
import { json, readSse } from './helpers/sse.js';
import { until as poll } from './helpers/until.js';

interface RunRecord {
  run_id: string;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
  waiting: { reason: string; wait_key: string; prompt: string } | null;
  paused: boolean;
}

describe('durable runs: start, ledger, stream, commands (tiny model, real engines)', function () {
  // Generous: the machine may be busy; `until` below gives up first, with the run's state.
  this.timeout(90_000);
  let k: TestKernel;
  let url: string;
  let bob: string;
  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { defaultWorkflows: { 'abstractcode.agent.v1': 'keel-chat:keel-chat', 'broken.agent.v1': 'nowhere:main' } } }],
    });
    url = (await k.listen()).url;
    bob = (await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } })).json<{ token: { token: string } }>().token.token;
  });
  after(() => k?.stop());

  const start = (payload: unknown, token = k.adminToken) => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload });
  const getRun = async (id: string, token = k.adminToken) => (await k.inject({ url: `/api/gateway/runs/${id}`, token })).json<RunRecord>();
  const command = (payload: Record<string, unknown>, token = k.adminToken) => k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: crypto.randomUUID(), ...payload } });
  const until = (id: string, ok: (r: RunRecord) => boolean, ms = 60_000) => poll(() => getRun(id), { ok, deadline: ms, what: `run ${id} to reach the awaited state` });
  const upload = (bytes: Buffer, name: string, fields: Record<string, string> = {}, token = k.adminToken) => {
    const body = multipart(fields, { name, bytes });
    return k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
  };

  it('answers every start rule of seed §2.1/§7 with its status', async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ flow_id: '@default' }, 400, 'body.interface'],
      [{ flow_id: '@default', interface: 'abstractcode.agent.v1', bundle_id: 'keel-chat' }, 400, 'body.bundle_id'],
      [{ flow_id: '@default', interface: 'abstractcode.agent.v1', bundle_version: '0.1.0' }, 400, 'body.bundle_version'],
      [{ bundle_id: 'keel-chat', kind: 'chat' }, 400, 'body.kind'],
      [{ bundle_id: 'keel-chat', kind: 'docs' }, 400, 'body.kind'],
      [{ bundle_id: 'keel-chat', input_data: { _runtime: { stream: 'yes' } } }, 400, 'body.input_data._runtime.stream'],
      [{ bundle_id: 'keel-chat', registry_scope: 'framework_catalog' }, 400, 'body.registry_scope'],
    ];
    for (const [payload, status, field] of cases) {
      const res = await start(payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(status);
      expect(res.json<{ detail: { field: string } }>().detail.field, JSON.stringify(payload)).to.equal(field);
    }
    expect((await start({ bundle_id: 'no-such-bundle' })).statusCode).to.equal(404);
    const broken = await start({ flow_id: '@default', interface: 'broken.agent.v1' });
    expect(broken.statusCode).to.equal(409);
    expect(broken.json<{ detail: { message: string } }>().detail.message).to.contain('agents.default_workflow.broken.agent.v1');
    expect((await start({ bundle_id: 'keel-chat' }, '')).statusCode).to.equal(401);
  });

  it('refuses an input_data._runtime that is not an object with 400 naming it, on start and schedule (it was a 500)', async () => {
    for (const runtime of ['x', 5, true, ['stream']]) {
      for (const url of ['/api/gateway/runs/start', '/api/gateway/runs/schedule']) {
        const res = await k.inject({ method: 'POST', url, token: k.adminToken, payload: { bundle_id: 'keel-chat', input_data: { prompt: 'hi', _runtime: runtime } } });
        expect(res.statusCode, `${url} ${JSON.stringify(runtime)}: ${res.body}`).to.equal(400);
        expect(res.json<{ detail: { field: string; message: string } }>().detail).to.include({ field: 'body.input_data._runtime', message: 'input_data._runtime must be an object of run settings, for example {"stream": true}.' });
      }
    }
  });

  it('refuses @default with a blank interface, or one with whitespace, with 400 naming body.interface (not a 409 about a default)', async () => {
    for (const iface of [' ', '\t\n', 'abstractcode.agent.v1 ', 'my agent.v1']) {
      for (const url of ['/api/gateway/runs/start', '/api/gateway/runs/schedule']) {
        const res = await k.inject({ method: 'POST', url, token: k.adminToken, payload: { flow_id: '@default', interface: iface, input_data: { prompt: 'hi' } } });
        expect(res.statusCode, `${url} ${JSON.stringify(iface)}: ${res.body}`).to.equal(400);
        expect(res.json<{ detail: { field: string } }>().detail.field).to.equal('body.interface');
      }
    }
  });

  it('runs the default agent workflow of an interface with the tiny model, echoing and storing resolved_workflow', async () => {
    const res = await start({ flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'What is the capital of Japan?', workflow_selection: { forged: true } } });
    expect(res.statusCode).to.equal(200);
    const body = res.json<{ run_id: string; runner_warning: string | null; resolved_workflow: Record<string, unknown> }>();
    expect(body.runner_warning).to.equal(null);
    expect(body.resolved_workflow).to.deep.equal({ workflow_id: 'keel-chat@0.1.0:keel-chat', bundle_id: 'keel-chat', bundle_version: '0.1.0', flow_id: 'keel-chat', registry_scope: 'private', name: 'keel-chat', source: 'gateway_default', interface: 'abstractcode.agent.v1' });
    const inputs = await k.inject({ url: `/api/gateway/runs/${body.run_id}/input_data`, token: k.adminToken });
    expect(inputs.json<{ workflow_selection: unknown }>().workflow_selection).to.deep.equal(body.resolved_workflow);
    const run = await until(body.run_id, (r) => r.status === 'completed');
    expect(run.output).to.deep.include({ response: 'The capital of Japan is Tokyo.', success: true });
  });

  it('keeps a durable ledger read by pages (cursor = records consumed) and in batches', async () => {
    const { run_id } = (await start({ bundle_id: 'keel-chat', input_data: { prompt: 'Hello!' } })).json<{ run_id: string }>();
    await until(run_id, (r) => r.status === 'completed');
    const all = (await k.inject({ url: `/api/gateway/runs/${run_id}/ledger`, token: k.adminToken })).json<{ items: Array<{ cursor: number; status: string; step_id: string; effect: { type: string } | null; result: Record<string, unknown> }>; next_after: number }>();
    expect(all.items.map((i) => i.cursor)).to.deep.equal([1, 2, 3, 4]);
    expect(all.next_after).to.equal(4);
    const [started, completed] = all.items;
    expect(started!.status).to.equal('started');
    expect(completed!.status).to.equal('completed');
    expect(completed!.step_id).to.equal(started!.step_id);
    expect(completed!.effect!.type).to.equal('llm_call');
    expect(completed!.result.content).to.equal('Hello! How can I help you today?');
    const page = (await k.inject({ url: `/api/gateway/runs/${run_id}/ledger?after=1&limit=2`, token: k.adminToken })).json<{ items: Array<{ cursor: number }>; next_after: number }>();
    expect(page.items.map((i) => i.cursor)).to.deep.equal([2, 3]);
    expect(page.next_after).to.equal(3);
    const batch = await k.inject({ method: 'POST', url: '/api/gateway/runs/ledger/batch', token: k.adminToken, payload: { limit: 1, runs: [{ run_id, after: 3 }, { run_id: 'unknown' }] } });
    expect(batch.json<{ runs: Record<string, { items: unknown[]; next_after: number }> }>().runs).to.have.keys([run_id]);
    expect(batch.json<{ runs: Record<string, { next_after: number }> }>().runs[run_id]!.next_after).to.equal(4);
  });

  it('streams steps with id = cursor, token deltas before done, and resumes from Last-Event-ID without repeats', async () => {
    const { run_id } = (await start({ bundle_id: 'keel-chat', input_data: { prompt: 'Tell me a story.', _runtime: { stream: true } } })).json<{ run_id: string }>();
    const stream = await readSse(`${url}/api/gateway/runs/${run_id}/ledger/stream`, { token: k.adminToken, deadline: 60_000 });
    expect(stream.response.headers.get('content-type')).to.match(/text\/event-stream/);
    const events = stream.events.map((e) => ({ event: e.event, id: e.id === undefined ? null : Number(e.id), data: json(e) }));
    const steps = events.filter((e) => e.event === 'step');
    expect(steps.map((s) => s.id)).to.deep.equal([1, 2, 3, 4]);
    expect(steps.every((s) => s.data.cursor === s.id)).to.equal(true);
    const deltas = events.filter((e) => e.event === 'llm.delta');
    expect(deltas.length).to.be.greaterThan(5);
    expect(deltas.every((d) => d.id === null && d.data.run_id === run_id && d.data.channel === 'content')).to.equal(true);
    expect(deltas.map((d) => d.data.seq)).to.deep.equal(deltas.map((_, i) => i + 1));
    expect(deltas.map((d) => d.data.text).join('')).to.equal('Once upon a time, a little boat named Keel sailed across the sea. It found a small island full of friendly birds. At sunset, Keel sailed home happy.');
    const end = events.findIndex((e) => e.event === 'llm.delta_end');
    const llmRecord = events.findIndex((e) => e.event === 'step' && (e.data as { status: string; effect?: { type: string } }).status === 'completed' && (e.data as { effect?: { type: string } }).effect?.type === 'llm_call');
    expect(end).to.be.greaterThan(llmRecord);
    expect(events[end]!.data).to.include({ reason: 'completed', call_id: (events[llmRecord]!.data as { step_id: string }).step_id });
    expect(events[events.length - 1]!.event).to.equal('done');

    const again = await readSse(`${url}/api/gateway/runs/${run_id}/ledger/stream`, { token: k.adminToken, lastEventId: 2 });
    expect(again.events.filter((e) => e.id !== undefined).map((e) => Number(e.id))).to.deep.equal([3, 4]);
    expect(again.text).to.not.contain('llm.delta');
    expect(again.last!.event).to.equal('done');
  });

  it('waits on ask_user, resumes with payload.payload, and completes with the answer', async () => {
    const flow = {
      id: 'ask',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Your name?' } } }),
        node({ id: 'greet', type: 'concat', exec: false, inputs: ['a', 'b'], outputs: ['result'], data: { pinDefaults: { a: 'Hello,' }, concatConfig: { separator: ' ' } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
      ],
      edges: edges('start -> ask', 'ask -> end', 'ask.response -> greet.b', 'greet.result -> end.response'),
    };
    expect((await upload(bundle('ask-test', '1.0.0', flow), 'ask.flow')).statusCode).to.equal(201);
    const { run_id } = (await start({ bundle_id: 'ask-test' })).json<{ run_id: string }>();
    const waiting = await until(run_id, (r) => r.status === 'waiting');
    expect(waiting.waiting).to.deep.include({ reason: 'user', wait_key: `user:${run_id}:ask`, prompt: 'Your name?' });
    // A wrong wait_key is refused at once (409, naming the run's own key), never queued and ignored.
    const wrongKey = await command({ run_id, type: 'resume', payload: { wait_key: 'nope', payload: { response: 'x' } } });
    expect(wrongKey.statusCode).to.equal(409);
    expect(wrongKey.json<{ detail: { reason_code: string; message: string } }>().detail).to.deep.include({ reason_code: 'invalid_state' });
    expect(wrongKey.json<{ detail: { message: string } }>().detail.message).to.contain(`'user:${run_id}:ask'`);
    expect((await getRun(run_id)).status).to.equal('waiting');
    const receipt = await command({ command_id: 'answer-1', run_id, type: 'resume', payload: { wait_key: `user:${run_id}:ask`, payload: { response: 'Ada' } } });
    expect(receipt.json()).to.deep.include({ accepted: true, duplicate: false });
    const dup = await command({ command_id: 'answer-1', run_id, type: 'resume', payload: {} });
    expect(dup.json()).to.deep.equal({ accepted: false, duplicate: true, seq: receipt.json<{ seq: number }>().seq });
    const done = await until(run_id, (r) => r.status === 'completed');
    expect(done.output).to.deep.include({ response: 'Hello, Ada', success: true });
  });

  it('pauses and resumes a run, and cancel ends it as cancelled', async () => {
    const { run_id } = (await start({ bundle_id: 'ask-test' })).json<{ run_id: string }>();
    await until(run_id, (r) => r.status === 'waiting');
    await command({ run_id, type: 'pause', payload: { reason: 'coffee' } });
    await until(run_id, (r) => r.paused);
    await command({ run_id, type: 'resume', payload: {} });
    await until(run_id, (r) => !r.paused);
    await command({ run_id, type: 'cancel', payload: { reason: 'done here' } });
    const cancelled = await until(run_id, (r) => r.status === 'cancelled');
    expect(cancelled.error).to.equal('done here');
    const ledger = (await k.inject({ url: `/api/gateway/runs/${run_id}/ledger`, token: k.adminToken })).json<{ items: Array<{ result: { name?: string; payload?: { text: string } } }> }>();
    expect(ledger.items.at(-1)!.result).to.deep.include({ name: 'abstract.status', payload: { text: 'cancelled' } });
    const unknownType = await command({ run_id, type: 'explode' });
    expect(unknownType.statusCode).to.equal(400);
  });

  it("answers 404 for another account's run on every run route", async () => {
    const { run_id } = (await start({ bundle_id: 'keel-chat', input_data: { prompt: 'Hi!' } })).json<{ run_id: string }>();
    for (const u of [`/api/gateway/runs/${run_id}`, `/api/gateway/runs/${run_id}/input_data`, `/api/gateway/runs/${run_id}/ledger`, `/api/gateway/runs/${run_id}/ledger/stream`]) {
      expect((await k.inject({ url: u, token: bob })).statusCode, u).to.equal(404);
    }
    expect((await command({ run_id, type: 'cancel' }, bob)).statusCode).to.equal(404);
    const list = (await k.inject({ url: '/api/gateway/runs', token: bob })).json<{ items: unknown[] }>();
    expect(list.items).to.deep.equal([]);
  });

  it('fails a run whose flow uses a node type Keel does not implement, naming the node and type', async () => {
    const flow = { id: 'odd', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'weird', type: 'quantum_teleport' }), node({ id: 'end', type: 'on_flow_end' })], edges: edges('start -> weird', 'weird -> end') };
    await upload(bundle('odd-test', '1.0.0', flow), 'odd.flow');
    const { run_id } = (await start({ bundle_id: 'odd-test' })).json<{ run_id: string }>();
    const run = await until(run_id, (r) => r.status === 'failed');
    expect(run.error).to.contain("'weird'").and.contain("'quantum_teleport'");
  });

  it('refuses a broken bundle upload with 400 naming the problem, and the shared directory to a non-admin', async () => {
    const bad = await upload(Buffer.from('not a zip'), 'bad.flow');
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<{ detail: { message: string } }>().detail.message).to.contain('zip');
    const noManifest = await upload(Buffer.from((await import('fflate')).zipSync({ 'x.txt': new Uint8Array([1]) })), 'empty.flow');
    expect(noManifest.json<{ detail: { message: string } }>().detail.message).to.contain('manifest.json is missing');
    const shared = await upload(bundle('mine', '1.0.0', { id: 'm', nodes: [node({ id: 'start', type: 'on_flow_start' })], edges: [] }), 'm.flow', { scope: 'shared' }, bob);
    expect(shared.statusCode).to.equal(403);
    const own = await upload(bundle('mine', '1.0.0', { id: 'm', nodes: [node({ id: 'start', type: 'on_flow_start' })], edges: [] }), 'm.flow', {}, bob);
    expect(own.statusCode).to.equal(201);
    expect((await upload(bundle('mine', '1.0.0', { id: 'm', nodes: [node({ id: 'start', type: 'on_flow_start' })], edges: [] }), 'm.flow', {}, bob)).statusCode).to.equal(409);
    const listed = (await k.inject({ url: '/api/gateway/bundles', token: bob })).json<{ items: Array<{ bundle_id: string; source: string; description: string }> }>().items;
    expect(listed.find((b) => b.bundle_id === 'mine')).to.include({ source: 'imported', description: 'mine test flow' });
    expect(listed.find((b) => b.bundle_id === 'keel-chat')).to.include({ source: 'shipped' });
  });

  it('runs the real basic-llm-test fixture bundle unchanged with the default model', async function () {
    const bytes = readFileSync(requireSharedFlow(this, 'basic-llm-test@0.0.0.flow'));
    expect((await upload(bytes, 'basic-llm-test@0.0.0.flow')).statusCode).to.equal(201);
    const { run_id } = (await start({ bundle_id: 'basic-llm-test', input_data: { prompt: 'What is the capital of Egypt?' } })).json<{ run_id: string }>();
    const run = await until(run_id, (r) => r.status === 'completed');
    expect(run.output).to.deep.include({ response: 'The capital of Egypt is Cairo.', success: true });
  });
});
