import { expect } from 'chai';
import OpenAI from 'openai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { embeddingsDir, requireGloveModel, requireStoriesModel, STORIES_GREEDY_PREFIX, storiesDir, TINY_CHAT } from './helpers/shared-models.js';
import { EndlessEndpoint } from './helpers/endless-endpoint.js';
import { until } from './helpers/until.js';

const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0);

// Rules of the API run on the project's own tiny chat model; the tests that check what the real
// models of ../shared/models answer skip (saying so) when that folder is absent.
describe('the OpenAI-compatible /v1 API, driven by the official openai client', function () {
  let kernel: TestKernel;
  let url: string;
  let client: OpenAI;

  before(async function () {
    kernel = await createTestKernel({
      plugins: [{ plugin: inferencePlugin, config: { modelsDirs: [storiesDir, embeddingsDir], defaultChatModel: 'local/stories260K', defaultEmbeddingModel: 'local/glove-sif-50d' } }],
    });
    url = (await kernel.listen()).url;
    client = new OpenAI({ apiKey: kernel.adminToken, baseURL: `${url}/v1`, maxRetries: 0 });
  });
  after(() => kernel?.stop());

  it('lists the local models with full ids', async () => {
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).to.include(TINY_CHAT);
    const one = await client.models.retrieve(TINY_CHAT);
    expect(one).to.include({ id: TINY_CHAT, object: 'model', owned_by: 'local' });
  });

  it('lists the real models of ../shared/models with full ids', async function () {
    requireStoriesModel(this);
    requireGloveModel(this);
    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).to.include.members(['local/stories260K', 'local/glove-sif-50d']);
    const one = await client.models.retrieve('local/stories260K');
    expect(one).to.include({ id: 'local/stories260K', object: 'model', owned_by: 'local' });
  });

  it('completes text greedily, word for word as the model was published', async function () {
    requireStoriesModel(this);
    const res = await client.completions.create({ model: 'local/stories260K', prompt: '', max_tokens: 40, temperature: 0 });
    expect(STORIES_GREEDY_PREFIX.startsWith(res.choices[0]!.text) || res.choices[0]!.text.startsWith(STORIES_GREEDY_PREFIX)).to.equal(true, res.choices[0]!.text);
    expect(res.choices[0]!.finish_reason).to.equal('length');
    expect(res.usage!.completion_tokens).to.equal(40);
    expect(res.object).to.equal('text_completion');
  });

  it('streams a chat completion whose chunks add up to the non-streamed answer, ending with usage', async () => {
    const request = { model: TINY_CHAT, messages: [{ role: 'user' as const, content: 'Tell me a story.' }], max_tokens: 24, temperature: 0 };
    const whole = await client.chat.completions.create(request);
    expect(whole.object).to.equal('chat.completion');
    expect(whole.choices[0]!.message.role).to.equal('assistant');
    expect(whole.choices[0]!.finish_reason).to.equal('length');
    expect(whole.usage).to.include({ completion_tokens: 24 });

    const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let chunks = 0;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      expect(chunk.object).to.equal('chat.completion.chunk');
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).to.equal(whole.choices[0]!.message.content);
    expect(chunks).to.be.greaterThan(5);
    expect(finish).to.equal('length');
    expect(usage).to.deep.equal(whole.usage);
  });

  it('honours max_tokens and stop sequences', async function () {
    requireStoriesModel(this);
    const short = await client.completions.create({ model: 'local/stories260K', prompt: '', max_tokens: 3, temperature: 0 });
    expect(short.usage!.completion_tokens).to.equal(3);
    const stopped = await client.completions.create({ model: 'local/stories260K', prompt: '', max_tokens: 60, temperature: 0, stop: ['Lily'] });
    expect(stopped.choices[0]!.text).to.equal('Once upon a time, there was a little girl named ');
    expect(stopped.choices[0]!.finish_reason).to.equal('stop');
    // Streamed, the stop string never leaks into a delta, even when it starts inside a token.
    const stream = await client.completions.create({ model: 'local/stories260K', prompt: '', max_tokens: 60, temperature: 0, stop: ['ily.'], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text).to.equal('Once upon a time, there was a little girl named L');
  });

  it('honours max_tokens and stop sequences on a chat completion (the tiny chat model)', async () => {
    const story = { model: TINY_CHAT, messages: [{ role: 'user' as const, content: 'Tell me a story.' }], temperature: 0 };
    const short = await client.chat.completions.create({ ...story, max_tokens: 3 });
    expect(short.usage!.completion_tokens).to.equal(3);
    expect(short.choices[0]!.finish_reason).to.equal('length');
    const stopped = await client.chat.completions.create({ ...story, stop: ['Keel'] });
    expect(stopped.choices[0]!.message.content).to.equal('Once upon a time, a little boat named ');
    expect(stopped.choices[0]!.finish_reason).to.equal('stop');
    // Streamed, the stop string never leaks into a delta, even when it starts inside one ("frien", "dly birds").
    const stream = await client.chat.completions.create({ ...story, stop: ['y bir'], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).to.equal('Once upon a time, a little boat named Keel sailed across the sea. It found a small island full of friendl');
  });

  it('gives the same sampled answer for the same seed', async () => {
    const ask = () => client.completions.create({ model: TINY_CHAT, prompt: 'The cat', max_tokens: 20, temperature: 1, seed: 42 });
    expect((await ask()).choices[0]!.text).to.equal((await ask()).choices[0]!.text);
  });

  it('enforces a JSON schema on the output (structured output by grammar)', async () => {
    const res = await client.chat.completions.create({
      model: TINY_CHAT,
      messages: [{ role: 'user', content: 'Pick a colour.' }],
      max_tokens: 40,
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: 'pick', schema: { type: 'object', properties: { colour: { enum: ['red', 'blue'] } }, required: ['colour'] } } },
    });
    const parsed = JSON.parse(res.choices[0]!.message.content!) as { colour: string };
    expect(['red', 'blue']).to.include(parsed.colour);
  });

  it('embeds sentences with a real embedder (paraphrase closer than unrelated), as floats or base64', async function () {
    requireGloveModel(this);
    const res = await client.embeddings.create({ model: 'local/glove-sif-50d', input: ['It will rain tomorrow.', 'Tomorrow the weather will be wet.', 'He plays the guitar in a band.'] });
    const [a, b, c] = res.data.map((d) => d.embedding);
    expect(a).to.have.length(50);
    expect(cosine(a!, b!)).to.be.closeTo(0.863, 0.002);
    expect(cosine(a!, b!)).to.be.greaterThan(cosine(a!, c!) + 0.5);
    expect(res.usage.prompt_tokens).to.be.greaterThan(0);
    const b64 = await client.embeddings.create({ model: 'local/glove-sif-50d', input: 'It will rain tomorrow.', encoding_format: 'base64' });
    // The client decodes base64 to floats itself; the values must match the float answer.
    const decoded = b64.data[0]!.embedding as unknown as number[] | string;
    const bytes = typeof decoded === 'string' ? Buffer.from(decoded, 'base64') : null;
    const floats = bytes ? Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)) : (decoded as number[]);
    expect(floats).to.have.length(50);
    floats.forEach((v, i) => expect(v).to.be.closeTo(a![i]!, 1e-6));
  });

  it('embeds with a GGUF model too', async function () {
    requireStoriesModel(this);
    const res = await client.embeddings.create({ model: 'local/stories260K', input: ['a dog', 'a cat'] });
    expect(res.data).to.have.length(2);
    expect(res.data[0]!.embedding).to.have.length(64);
  });

  it('answers an unknown model with 404 in OpenAI shape, naming the model', async () => {
    const err = await client.chat.completions.create({ model: 'local/no-such-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(OpenAI.NotFoundError);
    const e = err as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.status).to.equal(404);
    expect(e.message).to.contain("'local/no-such-model'");
    expect(e.code).to.equal('model_not_found');
  });

  it('answers invalid parameters with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ temperature: 3 }, 'temperature'],
      [{ max_tokens: 0 }, 'max_tokens'],
      [{ n: 2 }, 'n'],
      [{ messages: [] }, 'messages'],
      [{ messages: [{ role: 'wizard', content: 'hi' }] }, 'messages[0].role'],
      [{ tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
    ];
    for (const [patch, param] of cases) {
      const body = { model: TINY_CHAT, messages: [{ role: 'user', content: 'hi' }], ...patch } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
      const err = (await client.chat.completions.create(body).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(err, JSON.stringify(patch)).to.be.instanceOf(OpenAI.BadRequestError);
      expect(err.param, JSON.stringify(patch)).to.equal(param);
    }
    const emb = (await client.embeddings.create({ model: TINY_CHAT, input: 'x', dimensions: 3 }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(emb.param).to.equal('dimensions');
  });

  it('refuses a missing or wrong API key with 401 in OpenAI shape', async () => {
    const anonymous = new OpenAI({ apiKey: 'keel_wrong', baseURL: `${url}/v1`, maxRetries: 0 });
    const err = await anonymous.models.list().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(OpenAI.AuthenticationError);
    const raw = await fetch(`${url}/v1/models`);
    expect(raw.status).to.equal(401);
    expect(((await raw.json()) as { error: { type: string } }).error.type).to.equal('authentication_error');
  });

  it('answers /core/v1/* with 308 to /v1/*, query kept', async () => {
    for (const [method, path] of [['POST', '/core/v1/chat/completions?x=1'], ['GET', '/core/v1/models'], ['GET', '/core/v1']] as const) {
      const res = await fetch(`${url}${path}`, { method, redirect: 'manual' });
      expect(res.status, path).to.equal(308);
      expect(res.headers.get('location'), path).to.equal(path.replace('/core/v1', '/v1'));
    }
    const legacy = new OpenAI({ apiKey: kernel.adminToken, baseURL: `${url}/core/v1`, maxRetries: 0 });
    const list = await legacy.models.list();
    expect(list.data.length).to.be.greaterThan(0);
  });

  it('stops generating at once when the client disconnects mid-stream, and records it', async function () {
    requireStoriesModel(this);
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'local/stories260K', messages: [{ role: 'user', content: 'Tell me a long story.' }], max_tokens: 450, temperature: 0, stream: true },
      { signal: controller.signal },
    );
    let pieces = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content && ++pieces === 3) controller.abort();
      }
    } catch {
      /* the abort ends the iteration */
    }
    type LogEntry = { endpoint: string; stream: boolean; status: number; finish_reason: string; completion_tokens: number };
    const streamed = async () => (await kernel.inject({ url: '/api/gateway/openai-api/logs?limit=5', token: kernel.adminToken })).json<{ items: LogEntry[] }>().items.find((e) => e.stream && e.endpoint === '/v1/chat/completions');
    const entry = await until(streamed, { ok: (e) => e !== undefined, deadline: 30_000, what: 'the log entry of the streamed request' });
    expect(entry).to.include({ status: 499, finish_reason: 'cancelled' });
    expect(entry!.completion_tokens).to.be.below(100);
    // The worker is free: the next request runs at once.
    const next = await client.completions.create({ model: 'local/stories260K', prompt: '', max_tokens: 5, temperature: 0 });
    expect(next.choices[0]!.text).to.equal('Once upon a time,');
  });
});

describe('the /v1 API relaying to a remote OpenAI-compatible endpoint (a scripted stand-in, no model)', function () {
  let kernel: TestKernel;
  let client: OpenAI;
  const endpoint = new EndlessEndpoint();
  before(async () => {
    const baseUrl = await endpoint.start();
    kernel = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl, models: ['endless'] }] } }] });
    client = new OpenAI({ apiKey: kernel.adminToken, baseURL: `${(await kernel.listen()).url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await kernel?.stop();
    await endpoint.stop();
  });

  it('stops the upstream call at once when the client disconnects mid-stream, and records it', async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create({ model: 'fake/endless', messages: [{ role: 'user', content: 'Talk forever.' }], stream: true }, { signal: controller.signal });
    let pieces = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content && ++pieces === 3) controller.abort();
      }
    } catch {
      /* the abort ends the iteration */
    }
    await until(() => endpoint.closed, { ok: (n) => n === 1, what: 'the endpoint to see its client go' });
    type LogEntry = { endpoint: string; stream: boolean; status: number; finish_reason: string };
    const streamed = async () => (await kernel.inject({ url: '/api/gateway/openai-api/logs?limit=5', token: kernel.adminToken })).json<{ items: LogEntry[] }>().items.find((e) => e.stream && e.endpoint === '/v1/chat/completions');
    const entry = await until(streamed, { ok: (e) => e !== undefined, what: 'the log entry of the streamed request' });
    expect(entry).to.include({ status: 499, finish_reason: 'cancelled' });
  });
});
