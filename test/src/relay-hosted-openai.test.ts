import { expect } from 'chai';
import OpenAI from 'openai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { TINY_CHAT } from './helpers/shared-models.js';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { framesOf, post, startRelay, type RelayKernel } from './helpers/relay-hosted.js';

type Json = Record<string, unknown>;

// The relay in front of a real OpenAI-compatible upstream: a second Keel kernel serving `/v1` on
// the tiny model (its admin token is the account's API key), driven over HTTP and by the official
// `openai` client.
describe('relay hosted: a Keel kernel on the tiny model as the upstream, and the openai client', function () {
  this.timeout(180_000);
  let upstreamKernel: TestKernel;
  let relay: RelayKernel;
  let client: OpenAI;

  before(async () => {
    upstreamKernel = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { defaultChatModel: TINY_CHAT } }] });
    const { url } = await upstreamKernel.listen();
    relay = await startRelay([{ apiKey: upstreamKernel.adminToken, baseUrl: `${url}/v1` }]);
    client = new OpenAI({ apiKey: relay.token, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstreamKernel?.stop();
  });

  const messages = [{ role: 'user' as const, content: 'Tell me a story.' }];

  it('answers a non-stream chat completion from the real upstream', async () => {
    const answer = await post(relay, '/chat/completions', { model: TINY_CHAT, messages, max_tokens: 8 });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('x-relay-ignored-parameters')).to.equal('max_tokens');
    const choice = (answer.json.choices as Json[])[0]!;
    expect((choice.message as Json).role).to.equal('assistant');
    expect(String((choice.message as Json).content).length).to.be.greaterThan(0);
    expect(choice.finish_reason).to.be.oneOf(['stop', 'length']);
    expect((answer.json.usage as Json).completion_tokens).to.be.a('number');
  });

  it('streams a chat completion from the real upstream, ending with [DONE]', async () => {
    const answer = await post(relay, '/chat/completions', { model: TINY_CHAT, messages, stream: true });
    expect(answer.status).to.equal(200);
    const frames = framesOf(answer.text);
    expect(frames.at(-1)!.data).to.equal('[DONE]');
    const text = frames.slice(0, -1).map((f) => (((JSON.parse(f.data) as Json).choices as Json[])[0]?.delta as Json | undefined)?.content ?? '').join('');
    expect(text.length).to.be.greaterThan(0);
  });

  it('answers completions from the real upstream, stream and not', async () => {
    const whole = await post(relay, '/completions', { model: TINY_CHAT, prompt: 'Once upon a time' });
    expect(whole.status, whole.text).to.equal(200);
    expect(whole.json.object).to.equal('text_completion');
    expect(String((whole.json.choices as Json[])[0]!.text).length).to.be.greaterThan(0);
    const stream = await post(relay, '/completions', { model: TINY_CHAT, prompt: 'Once upon a time', stream: true });
    const frames = framesOf(stream.text);
    expect(frames.at(-1)!.data).to.equal('[DONE]');
    expect(frames.length).to.be.greaterThan(2);
  });

  it('serves the openai client: chat non-stream and stream add up to text, with usage', async () => {
    const whole = await client.chat.completions.create({ model: TINY_CHAT, messages, temperature: 0 });
    expect(whole.object).to.equal('chat.completion');
    expect(whole.choices[0]!.message.content).to.be.a('string').and.not.equal('');
    expect(whole.usage!.total_tokens).to.equal(whole.usage!.prompt_tokens + whole.usage!.completion_tokens);

    const stream = await client.chat.completions.create({ model: TINY_CHAT, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).to.not.equal('');
    expect(usage?.completion_tokens).to.be.a('number');
  });

  it('serves the openai client: responses non-stream and stream', async () => {
    const response = await client.responses.create({ model: TINY_CHAT, input: 'Tell me a story.', instructions: 'Be brief.' });
    expect(response.object).to.equal('response');
    expect(response.status).to.be.oneOf(['completed', 'incomplete']);
    expect(response.output_text).to.be.a('string').and.not.equal('');
    expect(response.usage!.output_tokens).to.be.greaterThan(0);

    const stream = await client.responses.create({ model: TINY_CHAT, input: 'Tell me a story.', stream: true });
    let deltas = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas += event.delta;
      if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
    }
    expect(deltas).to.not.equal('');
    expect(final?.output_text ?? ((final?.output[0] as { content?: Array<{ text: string }> } | undefined)?.content?.[0]?.text)).to.equal(deltas);
  });

  it('hands the openai client the upstream error with its real status', async () => {
    const scripted = new RelayUpstream();
    scripted.account('key-q', { replies: [{ status: 429, error: { message: 'You hit your usage limit.', type: 'usage_limit_reached', code: 'usage_limit_reached', resets_in_seconds: 90 } }] });
    await scripted.start();
    const limited = await startRelay([{ apiKey: 'key-q', baseUrl: scripted.url }]);
    try {
      const other = new OpenAI({ apiKey: limited.token, baseURL: `${limited.url}/v1`, maxRetries: 0 });
      const failure = await other.chat.completions.create({ model: 'gpt-test', messages }).then(() => null, (err: unknown) => err);
      expect(failure).to.be.instanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).to.equal(429);
      expect((failure as InstanceType<typeof OpenAI.APIError>).code).to.equal('usage_limit_reached');
    } finally {
      await limited.kernel.stop();
      await scripted.stop();
    }
  });
});
