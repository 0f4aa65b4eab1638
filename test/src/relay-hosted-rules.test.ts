import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { post, startRelay, trafficRecords, type RelayKernel } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

// The body rules of the text routes, through the relay's HTTP front door: every refusal has its
// status and the relay envelope, comes before any upstream call, and the stripped parameters are
// disclosed in a fixed order.
describe('relay hosted: text route body rules', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let relay: RelayKernel;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a');
    await upstream.start();
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }]);
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream?.stop();
  });

  const chat = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

  function expectRefusal(answer: { status: number; json: Record<string, unknown>; headers: Headers }, status: number, message: RegExp, code?: string): void {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(status);
    const error = answer.json.error as Record<string, unknown>;
    expect(error.message).to.match(message);
    expect(answer.json.detail).to.equal(error.message);
    expect(error).to.have.property('type');
    if (code) expect(error.code).to.equal(code);
    expect(answer.headers.get('x-relay-overhead-ms')).to.match(/^\d+(\.\d+)?$/);
  }

  it('answers invalid JSON with 400 "Request body must be valid JSON."', async () => {
    for (const route of ['/chat/completions', '/completions', '/responses']) {
      expectRefusal(await post(relay, route, '{"model": '), 400, /^Request body must be valid JSON\.$/, 'invalid_json');
    }
  });

  it('answers a body that is not an object with 400', async () => {
    expectRefusal(await post(relay, '/chat/completions', '[1, 2]'), 400, /^Request body must be a JSON object\.$/);
    expectRefusal(await post(relay, '/responses', '"text"'), 400, /^Request body must be a JSON object\.$/);
  });

  it('reads an empty body as {} (then asks for the model)', async () => {
    expectRefusal(await post(relay, '/chat/completions', ''), 422, /`model` is required/, 'invalid_model');
  });

  it('refuses a body over limits.maxBodyBytes with 413', async () => {
    const small = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { limits: { maxBodyBytes: 2048 } });
    try {
      const answer = await post(small, '/chat/completions', { ...chat, messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
      expect(answer.status).to.equal(413);
      expect(answer.json.error).to.have.property('message');
    } finally {
      await small.kernel.stop();
    }
  });

  it('refuses store=true on chat and completions, and any store but false on responses', async () => {
    expectRefusal(await post(relay, '/chat/completions', { ...chat, store: true }), 422, /requires `store=false`/, 'unsupported_store');
    expectRefusal(await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', store: true }), 422, /requires `store=false`/);
    expectRefusal(await post(relay, '/responses', { model: 'gpt-test', input: 'x', store: true }), 422, /requires `store=false`/);
    expectRefusal(await post(relay, '/responses', { model: 'gpt-test', input: 'x', store: 'yes' }), 422, /requires `store=false`/);
  });

  it('refuses n > 1', async () => {
    expectRefusal(await post(relay, '/chat/completions', { ...chat, n: 2 }), 422, /`n` must be 1/, 'unsupported_n');
    expectRefusal(await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', n: 3 }), 422, /`n` must be 1/);
  });

  it('lists best_of, echo, logprobs and suffix of a completion in one message', async () => {
    const answer = await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', best_of: 2, echo: true, logprobs: 2, suffix: 'end' });
    expectRefusal(answer, 422, /^`best_of`, `echo`, `logprobs`, `suffix` are not supported on `\/v1\/completions`/, 'unsupported_parameter');
    expectRefusal(await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', suffix: 'end' }), 422, /^`suffix` is not supported/);
  });

  it('refuses a prompt that is not a string or one string in a list', async () => {
    for (const prompt of [['a', 'b'], [1], 5, undefined, { text: 'x' }]) {
      expectRefusal(await post(relay, '/completions', { model: 'gpt-test', prompt }), 422, /`prompt` must be a string/, 'invalid_prompt');
    }
  });

  it('refuses a body mixing messages and input', async () => {
    expectRefusal(await post(relay, '/chat/completions', { ...chat, input: 'x' }), 422, /either `messages`.*or `input`/, 'mixed_messages_and_input');
    expectRefusal(await post(relay, '/responses', { model: 'gpt-test', input: 'x', messages: [] }), 422, /not both/);
  });

  it('refuses a tool output that follows no assistant call of that id', async () => {
    const orphan = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_1', content: '42' }] };
    expectRefusal(await post(relay, '/chat/completions', orphan), 422, /no earlier assistant message called/, 'tool_output_without_call');
    const early = { model: 'gpt-test', messages: [{ role: 'tool', tool_call_id: 'call_1', content: '42' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }] };
    expectRefusal(await post(relay, '/chat/completions', early), 422, /tool output for `call_1`/);
    const responses = { model: 'gpt-test', input: [{ type: 'function_call_output', call_id: 'call_9', output: '1' }] };
    expectRefusal(await post(relay, '/responses', responses), 422, /no earlier function_call item made/, 'tool_output_without_call');
  });

  it('refuses chat audio, modalities and prediction', async () => {
    expectRefusal(await post(relay, '/chat/completions', { ...chat, audio: { voice: 'x' }, modalities: ['text', 'audio'] }), 422, /^`audio`, `modalities` are not supported/);
    expectRefusal(await post(relay, '/chat/completions', { ...chat, prediction: { type: 'content', content: 'x' } }), 422, /^`prediction` is not supported/);
  });

  it('applies the response_format rules (json_object and a missing type refused, json_schema needs name and schema)', async () => {
    expectRefusal(await post(relay, '/chat/completions', { ...chat, response_format: { type: 'json_object' } }), 422, /`json_object` is not verified/, 'unsupported_response_format');
    expectRefusal(await post(relay, '/chat/completions', { ...chat, response_format: {} }), 422, /needs a `type`/);
    expectRefusal(await post(relay, '/chat/completions', { ...chat, response_format: { type: 'json_schema', json_schema: { schema: {} } } }), 422, /json_schema\.name/);
    expectRefusal(await post(relay, '/chat/completions', { ...chat, response_format: { type: 'json_schema', json_schema: { name: 'x', schema: 'no' } } }), 422, /json_schema\.schema/);
    expectRefusal(await post(relay, '/responses', { model: 'gpt-test', input: 'x', text: { format: { type: 'json_object' } } }), 422, /`json_object` is not verified/);
    expectRefusal(await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', response_format: { type: 'text' } }), 422, /`response_format` is not supported on `\/v1\/completions`/);
  });

  it('sends no upstream call for any refusal', async () => {
    const before = upstream.generations().length;
    await post(relay, '/chat/completions', { ...chat, n: 2, stream: true });
    await post(relay, '/responses', { model: 'gpt-test', input: 'x', store: true, stream: true });
    expect(upstream.generations().length).to.equal(before);
  });

  it('answers a refused stream request with a real status and JSON, never a stream', async () => {
    const answer = await post(relay, '/chat/completions', { ...chat, n: 2, stream: true });
    expect(answer.status).to.equal(422);
    expect(answer.headers.get('content-type')).to.match(/json/);
  });

  it('refuses a model in no catalog with 422 and suggestions; a cli model on /v1/responses with 422', async () => {
    const unknown = await post(relay, '/chat/completions', { ...chat, model: 'gpt-tset' });
    expect(unknown.status).to.equal(422);
    expect(String((unknown.json.error as Record<string, unknown>).message)).to.include('gpt-tset');
    const cli = await post(relay, '/responses', { model: 'cli:keel-tiny-chat', input: 'x' });
    expect(cli.status).to.equal(422);
  });

  it('strips the seven parameters and discloses them in the fixed order on JSON answers, with a compatibility_adaptation record', async () => {
    const answer = await post(relay, '/chat/completions', { ...chat, top_p: 0.5, max_tokens: 10, temperature: 0.2, frequency_penalty: null });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('x-relay-ignored-parameters')).to.equal('temperature,top_p,max_tokens');
    const sent = upstream.generations().at(-1)!.body;
    for (const name of ['temperature', 'top_p', 'max_tokens', 'frequency_penalty']) expect(sent).to.not.have.property(name);
    const records = await until(() => trafficRecords(relay), { what: 'the compatibility_adaptation record', ok: (rs) => rs.some((r) => r.phase === 'compatibility_adaptation') });
    const record = records.find((r) => r.phase === 'compatibility_adaptation')!;
    expect(record.ignored_parameters).to.deep.equal(['temperature', 'top_p', 'max_tokens']);
    expect(record.reason).to.match(/hosted upstream/);
  });

  it('discloses `temperature,top_p` on an SSE answer too', async () => {
    const answer = await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', top_p: 1, temperature: 0, stream: true });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(answer.headers.get('x-relay-ignored-parameters')).to.equal('temperature,top_p');
    expect(answer.headers.get('x-relay-overhead-ms')).to.match(/^\d+(\.\d+)?$/);
  });

  it('sends no disclosure header when nothing was stripped', async () => {
    const answer = await post(relay, '/chat/completions', chat);
    expect(answer.headers.get('x-relay-ignored-parameters')).to.equal(null);
  });

  it('forwards reasoning_effort, and drops an explicit null as absent', async () => {
    await post(relay, '/chat/completions', { ...chat, reasoning_effort: 'high' });
    expect(upstream.generations().at(-1)!.body.reasoning_effort).to.equal('high');
    await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', reasoning_effort: null });
    expect(upstream.generations().at(-1)!.body).to.not.have.property('reasoning_effort');
    await post(relay, '/responses', { model: 'gpt-test', input: 'x', reasoning: { effort: 'low' } });
    expect(upstream.generations().at(-1)!.body.reasoning_effort).to.equal('low');
  });

  it('always asks the upstream for a stream with usage, under the account key', async () => {
    await post(relay, '/chat/completions', chat);
    const sent = upstream.generations().at(-1)!;
    expect(sent.body.stream).to.equal(true);
    expect(sent.body.stream_options).to.deep.equal({ include_usage: true });
    expect(sent.headers.authorization).to.equal('Bearer key-a');
  });

  it('lists the three text routes in /openapi.json under the relay token scheme', async () => {
    const doc = (await (await fetch(`${relay.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[]; description?: string }>> };
    for (const path of ['/v1/chat/completions', '/v1/completions', '/v1/responses']) {
      const operation = doc.paths[path]?.post;
      expect(operation, path).to.not.equal(undefined);
      expect(operation!.description).to.include('x-relay-ignored-parameters');
      expect(JSON.stringify(operation!.security)).to.not.include('bearerAuth');
    }
  });

  it('refuses a call without the relay credential', async () => {
    const res = await fetch(`${relay.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(res.status).to.equal(401);
    const bad = await fetch(`${relay.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: JSON.stringify(chat) });
    expect(bad.status).to.equal(401);
    const kernelToken = await fetch(`${relay.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${relay.kernel.adminToken}` }, body: JSON.stringify(chat) });
    expect(kernelToken.status).to.equal(401);
    expect(upstream.generations().every((g) => g.headers.authorization === 'Bearer key-a')).to.equal(true);
  });
});
