import { expect } from 'chai';
import { framesOf, post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

// The relay's cli lane on its default client (`cli.command` null: this Keel's own `keel prompt` on
// the bundled tiny model, real engine and worker threads), through the relay's HTTP API.
describe('relay cli: the default local client (keel prompt on the tiny model)', function () {
  this.timeout(300_000);
  let relay: RelayKernel;

  before(async () => {
    relay = await startRelay([], { hosted: { enabled: false } });
  });
  after(async () => {
    await relay?.kernel.stop();
  });

  async function get(route: string): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`${relay.url}/v1${route}`, { headers: { authorization: `Bearer ${relay.token}` } });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('discovers the client models: GET /v1/models lists cli:keel-tiny-chat', async () => {
    const models = await get('/models');
    expect(models.status, JSON.stringify(models.json)).to.equal(200);
    const ids = (models.json.data as Array<{ id: string }>).map((m) => m.id);
    expect(ids).to.include('cli:keel-tiny-chat');
  });

  it('answers a chat completion (non-stream) with the model text and usage', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'cli:keel-tiny-chat', messages: [{ role: 'user', content: 'What is the capital of France?' }], temperature: 0.2, max_tokens: 50 });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('x-relay-ignored-parameters')).to.equal('temperature,max_tokens');
    expect(answer.json).to.deep.include({ object: 'chat.completion', model: 'cli:keel-tiny-chat' });
    expect(answer.json.id).to.match(/^chatcmpl_/);
    const choice = (answer.json.choices as Array<{ message: { role: string; content: string }; finish_reason: string }>)[0]!;
    expect(choice.message.role).to.equal('assistant');
    expect(choice.message.content).to.match(/\S/);
    expect(choice.finish_reason).to.equal('stop');
    const usage = answer.json.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    expect(usage.completion_tokens).to.be.above(0);
    expect(usage.total_tokens).to.equal(usage.prompt_tokens + usage.completion_tokens);
  });

  it('streams a chat completion: role first, content chunks, finish, usage, [DONE]', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'cli-keel-tiny-chat', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'What is the capital of Germany?' }] });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/text\/event-stream/);
    const frames = framesOf(answer.text).map((f) => f.data);
    expect(frames.at(-1)).to.equal('[DONE]');
    const chunks = frames.slice(0, -1).map((d) => JSON.parse(d) as { object: string; choices: Array<{ delta: { role?: string; content?: string }; finish_reason: string | null }>; usage?: { completion_tokens: number } });
    expect(chunks[0]!.choices[0]!.delta.role).to.equal('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).to.match(/\S/);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).to.equal('stop');
    expect(chunks.at(-1)!.usage!.completion_tokens).to.be.above(0);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).to.equal(true);
  });

  it('answers a completion', async () => {
    const answer = await post(relay, '/completions', { model: 'cli:keel-tiny-chat', prompt: ['What is the capital of Italy?'] });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.object).to.equal('text_completion');
    const choice = (answer.json.choices as Array<{ text: string; logprobs: null; finish_reason: string }>)[0]!;
    expect(choice.text).to.match(/\S/);
    expect(choice.logprobs).to.equal(null);
  });

  it('serves json_schema structured output enforced by the engine grammar, with an accepted effort', async () => {
    const answer = await post(relay, '/chat/completions', {
      model: 'cli:keel-tiny-chat',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'Pick a colour.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'pick', strict: true, schema: { type: 'object', properties: { colour: { enum: ['red', 'blue'] } }, required: ['colour'] } } },
    });
    expect(answer.status, answer.text).to.equal(200);
    const content = (answer.json.choices as Array<{ message: { content: string } }>)[0]!.message.content;
    expect(['red', 'blue']).to.include((JSON.parse(content) as { colour: string }).colour);
    expect(content).to.equal(JSON.stringify(JSON.parse(content)));
  });

  it('refuses an unsupported effort with the supported list before starting the client', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'cli:keel-tiny-chat', reasoning_effort: 'ultra', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).to.equal(422);
    expect((answer.json.error as { message: string }).message).to.match(/Supported values: low, medium, high, xhigh, max\./);
  });

  it('answers GET /v1/subscription/status?provider=cli with the account and no invented usage windows', async () => {
    const status = await get('/subscription/status?provider=cli');
    expect(status.status, JSON.stringify(status.json)).to.equal(200);
    expect(status.json).to.deep.include({ object: 'subscription_status', provider: 'cli', rate_limit_reached_type: null, rate_limits: { default: null, additional: [] } });
    expect((status.json.source as { api_provider: string }).api_provider).to.equal('local');
  });

  it('reports keel prompt as installed, signed in (nothing to sign in to) and ready in providers.cli of the status', async () => {
    const cli = await until(async () => ((await get('/relay/status')).json.providers as { cli: Record<string, unknown> }).cli, { what: 'the first readiness probe', ok: (c) => c.checked_at !== null, deadline: 60_000 });
    expect(cli).to.deep.include({ enabled: true, ready_for_requests: true, cli_installed: true, logged_in: true, auth_method: 'none', api_provider: 'local' });
    expect(cli.cli_version).to.match(/\(keel prompt\)$/);
    expect(cli.models).to.include('cli:keel-tiny-chat');
  });

  it('refuses an unknown cli model with 422 naming it', async () => {
    const answer = await post(relay, '/chat/completions', { model: 'cli:no-such-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.status).to.equal(422);
    expect((answer.json.error as { code: string }).code).to.equal('unsupported_for_provider');
  });
});
