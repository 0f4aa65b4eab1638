import { expect } from 'chai';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { framesOf, post, startRelay, trafficRecords, type RelayKernel } from './helpers/relay-hosted.js';
import { until } from './helpers/until.js';

type Json = Record<string, unknown>;
const parse = (data: string) => JSON.parse(data) as Json;
/** The chat text of an SSE body (its content deltas joined). */
const contentOf = (text: string) => framesOf(text).filter((f) => f.data.startsWith('{"id"')).map((f) => ((((parse(f.data).choices as Json[])[0]?.delta) as Json | undefined)?.content as string | undefined) ?? '').join('');

// The hosted lane through the relay's HTTP front door, against the scripted upstream: all three
// routes streamed and not, the first-byte rule (failures before content are real statuses and fail
// over; after it they go in-band without [DONE]), incomplete streams, tool calls, conversations.
describe('relay hosted: the hosted lane', function () {
  this.timeout(120_000);
  let upstream: RelayUpstream;
  let relay: RelayKernel;

  before(async () => {
    upstream = new RelayUpstream();
    upstream.account('key-a');
    upstream.account('key-b');
    await upstream.start();
    relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }, { apiKey: 'key-b', baseUrl: upstream.url }], { hosted: { balance: 'ordered' } });
  });
  after(async () => {
    await relay?.kernel.stop();
    await upstream?.stop();
  });

  beforeEach(() => {
    upstream.script('key-a', [{ text: 'hello from upstream' }]);
    upstream.script('key-b', [{ text: 'hello from b' }]);
  });

  const chat = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };

  describe('chat completions', () => {
    it('answers a non-stream call rebuilt from the upstream stream, with chat usage', async () => {
      upstream.script('key-a', [{ text: 'hello from upstream', usage: { prompt_tokens: 7, completion_tokens: 4 } }]);
      const answer = await post(relay, '/chat/completions', chat);
      expect(answer.status).to.equal(200);
      expect(answer.json.object).to.equal('chat.completion');
      const choice = (answer.json.choices as Json[])[0]!;
      expect(choice.message).to.include({ role: 'assistant', content: 'hello from upstream' });
      expect(choice.finish_reason).to.equal('stop');
      expect(answer.json.usage).to.deep.equal({ prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 });
      expect(answer.headers.get('x-relay-overhead-ms')).to.match(/^\d+(\.\d+)?$/);
    });

    it('streams chunks that add up to the text and end with [DONE]; usage only when asked', async () => {
      const plain = framesOf((await post(relay, '/chat/completions', { ...chat, stream: true })).text);
      expect(plain.at(-1)!.data).to.equal('[DONE]');
      const chunks = plain.slice(0, -1).map((f) => parse(f.data));
      expect(chunks.map((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.content ?? '').join('')).to.equal('hello from upstream');
      expect(chunks.every((c) => c.object === 'chat.completion.chunk')).to.equal(true);
      expect(chunks.some((c) => c.usage)).to.equal(false);
      expect(chunks.map((c) => (c.choices as Json[])[0]?.finish_reason).filter(Boolean)).to.deep.equal(['stop']);

      const withUsage = framesOf((await post(relay, '/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } })).text);
      const usage = withUsage.slice(0, -1).map((f) => parse(f.data)).find((c) => c.usage);
      expect(usage?.usage).to.deep.equal({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    });

    it('passes a tool call through, stream and not', async () => {
      upstream.script('key-a', [{ toolCall: { id: 'call_7', name: 'lookup', arguments: '{"q":"x"}' } }]);
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }];
      const whole = await post(relay, '/chat/completions', { ...chat, tools });
      const choice = (whole.json.choices as Json[])[0]!;
      expect(choice.finish_reason).to.equal('tool_calls');
      expect(choice.message).to.deep.include({ content: null, tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] });
      expect(upstream.generations('key-a').at(-1)!.body.tools).to.deep.equal(tools);

      const frames = framesOf((await post(relay, '/chat/completions', { ...chat, tools, stream: true })).text);
      expect(frames.at(-1)!.data).to.equal('[DONE]');
      const call = frames.slice(0, -1).map((f) => parse(f.data)).flatMap((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.tool_calls as Json[] ?? []);
      expect(call[0]).to.deep.include({ id: 'call_7', type: 'function' });
    });
  });

  it('writes the records of a call: inbound, upstream request, usage, outbound', async () => {
    upstream.script('key-a', [{ text: 'recorded answer', usage: { prompt_tokens: 2, completion_tokens: 9 } }]);
    const answer = await post(relay, '/chat/completions', { ...chat, messages: [{ role: 'user', content: 'record me' }] });
    const id = String(answer.json.id);
    const records = await until(() => trafficRecords(relay), { what: 'the outbound_response record', ok: (rs) => rs.some((r) => r.phase === 'outbound_response' && r.id === id) });
    const requestId = records.find((r) => r.phase === 'outbound_response' && r.id === id)!.request_id;
    const mine = records.filter((r) => r.request_id === requestId);
    const phases = mine.map((r) => r.phase);
    expect(phases).to.include.members(['inbound_request', 'provider_resolution', 'upstream_request', 'upstream_usage', 'outbound_usage', 'outbound_response']);
    expect(String(requestId)).to.match(/^req_[0-9a-f]{32}$/);
    const upstreamRequest = mine.find((r) => r.phase === 'upstream_request')!;
    expect(upstreamRequest).to.include({ method: 'POST', url: `${upstream.url}/chat/completions` });
    expect(mine.find((r) => r.phase === 'outbound_usage')).to.deep.include({ provider: 'hosted', model: 'gpt-test', usage: { prompt_tokens: 2, completion_tokens: 9, total_tokens: 11 } });
    expect(phases.filter((p) => p === 'provider_resolution')).to.have.length(1);
    expect(JSON.stringify(mine)).to.not.include('key-a');
    expect(JSON.stringify(mine)).to.not.include(relay.token);
  });

  it('reuses the account\'s keep-alive connection across calls, streamed and not', async () => {
    await post(relay, '/chat/completions', chat);
    const before = upstream.connections;
    for (let i = 0; i < 6; i++) {
      expect((await post(relay, '/chat/completions', { ...chat, stream: i % 2 === 0 })).status).to.equal(200);
      expect((await post(relay, '/responses', { model: 'gpt-test', input: 'x', stream: i % 2 === 1 })).status).to.equal(200);
    }
    expect(upstream.connections - before).to.be.at.most(1);
  });

  it('expands local files by id (text inlined, image as a data URL) and refuses an unknown id with 422', async () => {
    const upload = async (name: string, type: string, bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([bytes], { type }), name);
      const res = await fetch(`${relay.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${relay.token}` }, body: form });
      expect(res.status).to.equal(200);
      return String(((await res.json()) as Json).id);
    };
    const textId = await upload('notes.txt', 'text/plain', Buffer.from('the notes'));
    const imageId = await upload('dot.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const answer = await post(relay, '/chat/completions', { model: 'gpt-test', messages: [{ role: 'user', content: [{ type: 'text', text: 'read' }, { type: 'file', file: { file_id: textId } }] }] });
    expect(answer.status, answer.text).to.equal(200);
    const sent = (upstream.generations('key-a').at(-1)!.body.messages as Json[])[0]!.content as Json[];
    expect(sent[1]!.type).to.equal('text');
    expect(String(sent[1]!.text)).to.match(/^Uploaded file `notes\.txt` \(text\/plain[^)]*\):\n\nthe notes$/);

    expect((await post(relay, '/responses', { model: 'gpt-test', input: [{ role: 'user', content: [{ type: 'input_image', file_id: imageId }] }] })).status).to.equal(200);
    const image = ((upstream.generations('key-a').at(-1)!.body.messages as Json[])[0]!.content as Json[])[0]!;
    expect(image).to.deep.equal({ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } });

    const unknown = await post(relay, '/responses', { model: 'gpt-test', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_00000000000000000000000000000000' }] }] });
    expect(unknown.status).to.equal(422);
    expect((unknown.json.error as Json).message).to.equal('Unknown local file id `file_00000000000000000000000000000000`. Upload it first with `POST /v1/files`.');
    const notImage = await post(relay, '/responses', { model: 'gpt-test', input: [{ role: 'user', content: [{ type: 'input_image', file_id: textId }] }] });
    expect(notImage.status).to.equal(422);
  });

  describe('completions', () => {
    it('answers a text_completion, stream and not', async () => {
      const whole = await post(relay, '/completions', { model: 'gpt-test', prompt: ['Once'] });
      expect(whole.status).to.equal(200);
      expect(whole.json.object).to.equal('text_completion');
      expect((whole.json.choices as Json[])[0]).to.include({ text: 'hello from upstream', index: 0, finish_reason: 'stop' });
      expect(upstream.generations('key-a').at(-1)!.path).to.equal('/completions');
      expect(upstream.generations('key-a').at(-1)!.body.prompt).to.equal('Once');

      const frames = framesOf((await post(relay, '/completions', { model: 'gpt-test', prompt: 'Once', stream: true })).text);
      expect(frames.at(-1)!.data).to.equal('[DONE]');
      const text = frames.slice(0, -1).map((f) => parse(f.data)).map((c) => (c.choices as Json[])[0]?.text ?? '').join('');
      expect(text).to.equal('hello from upstream');
    });
  });

  describe('responses', () => {
    it('answers a Responses object rebuilt from upstream chat, with Responses usage', async () => {
      const answer = await post(relay, '/responses', { model: 'gpt-test', input: 'hi', instructions: 'Be brief.', metadata: { k: 'v' } });
      expect(answer.status).to.equal(200);
      expect(answer.json).to.include({ object: 'response', status: 'completed', model: 'gpt-test' });
      expect(String(answer.json.id)).to.match(/^resp_/);
      const [message] = answer.json.output as Json[];
      expect(message).to.include({ type: 'message', role: 'assistant', status: 'completed' });
      expect((message!.content as Json[])[0]).to.include({ type: 'output_text', text: 'hello from upstream' });
      expect(answer.json.usage).to.deep.include({ input_tokens: 5, output_tokens: 3, total_tokens: 8 });
      expect(answer.json.metadata).to.deep.equal({ k: 'v' });
      const sent = upstream.generations('key-a').at(-1)!;
      expect(sent.path).to.equal('/chat/completions');
      expect(sent.body.messages).to.deep.equal([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
    });

    it('streams Responses events from response.created to response.completed', async () => {
      const answer = await post(relay, '/responses', { model: 'gpt-test', input: 'hi', stream: true });
      expect(answer.headers.get('content-type')).to.match(/^text\/event-stream/);
      const frames = framesOf(answer.text);
      const types = frames.map((f) => f.event);
      expect(types.slice(0, 4)).to.deep.equal(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
      expect(types.at(-1)).to.equal('response.completed');
      expect(frames.every((f) => parse(f.data).type === f.event)).to.equal(true);
      const sequence = frames.map((f) => parse(f.data).sequence_number);
      expect(sequence).to.deep.equal(sequence.map((_, i) => i));
      const text = frames.filter((f) => f.event === 'response.output_text.delta').map((f) => parse(f.data).delta).join('');
      expect(text).to.equal('hello from upstream');
      const completed = parse(frames.at(-1)!.data).response as Json;
      expect(completed.status).to.equal('completed');
      expect(completed.usage).to.deep.include({ input_tokens: 5, output_tokens: 3 });
    });

    it('translates function tools and items, and rebuilds a function_call item', async () => {
      upstream.script('key-a', [{ toolCall: { id: 'call_3', name: 'lookup', arguments: '{"q":1}' } }]);
      const body = {
        model: 'gpt-test',
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }],
        input: [
          { role: 'user', content: 'find it' },
          { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'nothing' },
        ],
      };
      const answer = await post(relay, '/responses', body);
      expect(answer.status).to.equal(200);
      const call = (answer.json.output as Json[]).find((item) => item.type === 'function_call');
      expect(call).to.include({ call_id: 'call_3', name: 'lookup', arguments: '{"q":1}', status: 'completed' });
      const sent = upstream.generations('key-a').at(-1)!.body;
      expect(sent.tools).to.deep.equal([{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }]);
      expect(sent.messages).to.deep.equal([
        { role: 'user', content: 'find it' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'nothing' },
      ]);

      upstream.script('key-a', [{ toolCall: { id: 'call_4', name: 'lookup', arguments: '{"q":2}' } }]);
      const frames = framesOf((await post(relay, '/responses', { ...body, stream: true })).text);
      const added = frames.find((f) => f.event === 'response.output_item.added');
      expect(parse(added!.data).item).to.include({ type: 'function_call', call_id: 'call_4', name: 'lookup' });
      expect(parse(frames.find((f) => f.event === 'response.function_call_arguments.done')!.data).arguments).to.equal('{"q":2}');
    });

    it('refuses hosted-only limits of the translation (non-function tools, previous_response_id) with 422', async () => {
      const tool = await post(relay, '/responses', { model: 'gpt-test', input: 'x', tools: [{ type: 'web_search' }] });
      expect(tool.status).to.equal(422);
      expect((tool.json.error as Json).code).to.equal('unsupported_tool');
      const previous = await post(relay, '/responses', { model: 'gpt-test', input: 'x', previous_response_id: 'resp_1' });
      expect(previous.status).to.equal(422);
    });

    it('replays a local conversation and appends the turn; an unknown conversation is 404', async () => {
      const created = await post(relay, '/conversations', { items: [{ type: 'message', role: 'user', content: 'seed' }] });
      expect(created.status).to.equal(200);
      const id = String(created.json.id);
      upstream.script('key-a', [{ text: 'first answer' }]);
      expect((await post(relay, '/responses', { model: 'gpt-test', input: 'one', conversation: id })).status).to.equal(200);
      upstream.script('key-a', [{ text: 'second answer' }]);
      const second = await post(relay, '/responses', { model: 'gpt-test', input: 'two', conversation: { id } });
      expect(second.status).to.equal(200);
      const sent = upstream.generations('key-a').at(-1)!;
      expect(sent.headers.session_id).to.equal(id);
      expect(sent.body.messages).to.deep.equal([
        { role: 'user', content: 'seed' },
        { role: 'user', content: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
      ]);
      const unknown = await post(relay, '/responses', { model: 'gpt-test', input: 'x', conversation: 'conv_00000000000000000000000000000000' });
      expect(unknown.status).to.equal(404);
      expect((unknown.json.error as Json).message).to.equal('Unknown conversation id `conv_00000000000000000000000000000000`.');
    });
  });

  describe('the first byte', () => {
    // Each test on a fresh relay: a failure benches an account, which would steer the next test.
    beforeEach(async () => {
      await relay.kernel.stop();
      relay = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }, { apiKey: 'key-b', baseUrl: upstream.url }], { hosted: { balance: 'ordered' } });
    });

    it('fails over to the next account when the first fails before content', async () => {
      upstream.script('key-a', [{ streamError: { message: 'overloaded', type: 'server_error', code: 'server_is_overloaded' }, before: 0 }]);
      const before = upstream.generations('key-b').length;
      const answer = await post(relay, '/chat/completions', { ...chat, stream: true });
      expect(answer.status).to.equal(200);
      expect(framesOf(answer.text).at(-1)!.data).to.equal('[DONE]');
      expect(contentOf(answer.text)).to.equal('hello from b');
      expect(answer.text).to.not.include('overloaded');
      expect(upstream.generations('key-b').length).to.equal(before + 1);
    });

    it('answers a failure before content with its real status and the upstream object, never an empty 200', async () => {
      const quota = { message: 'You hit your usage limit.', type: 'usage_limit_reached', code: 'usage_limit_reached', resets_in_seconds: 3600 };
      upstream.script('key-a', [{ status: 429, error: quota }]);
      upstream.script('key-b', [{ streamError: quota, before: 0 }]);
      for (const stream of [true, false]) {
        upstream.script('key-a', [{ status: 429, error: quota }]);
        upstream.script('key-b', [{ streamError: quota, before: 0 }]);
        const answer = await post(relay, '/chat/completions', { ...chat, stream });
        expect(answer.status, answer.text).to.equal(429);
        expect(answer.headers.get('content-type')).to.match(/json/);
        expect((answer.json.error as Json).code).to.equal('usage_limit_reached');
        expect(answer.json.detail).to.be.a('string');
      }
    });

    it('answers a client-class failure with 400 after exactly one upstream call', async () => {
      const a = upstream.generations('key-a').length;
      const b = upstream.generations('key-b').length;
      upstream.script('key-a', [{ streamError: { message: 'This model maximum context length is 10 tokens.', type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' }, before: 0 }]);
      const answer = await post(relay, '/responses', { model: 'gpt-test', input: 'hi', stream: true });
      expect(answer.status).to.equal(400);
      expect(answer.json.error).to.deep.include({ code: 'context_length_exceeded', type: 'invalid_request_error', param: 'messages' });
      expect(upstream.generations('key-a').length + upstream.generations('key-b').length).to.equal(a + b + 1);
    });

    it('writes an in-band error without [DONE] after content (chat), with an upstream_stream_error record', async () => {
      upstream.script('key-a', [{ streamError: { message: 'boom', type: 'server_error', code: 'server_error' }, before: 2, text: 'partial answer' }]);
      const answer = await post(relay, '/chat/completions', { ...chat, stream: true });
      expect(answer.status).to.equal(200);
      const frames = framesOf(answer.text);
      expect(frames.some((f) => f.data === '[DONE]')).to.equal(false);
      expect(parse(frames.at(-1)!.data)).to.deep.equal({ error: { message: 'boom', type: 'server_error', param: null, code: 'server_error' } });
      expect(contentOf(answer.text)).to.equal('partial answer'.slice(0, contentOf(answer.text).length)).and.not.equal('');
      await until(() => trafficRecords(relay), { what: 'an upstream_stream_error record', ok: (rs) => rs.some((r) => r.phase === 'upstream_stream_error' && (r.error as Json)?.message === 'boom') });
    });

    it('ends a stream cut after content with incomplete_stream and no [DONE] (completions); 502 when not streaming', async () => {
      upstream.script('key-a', [{ drop: true, before: 2 }]);
      const frames = framesOf((await post(relay, '/completions', { model: 'gpt-test', prompt: 'x', stream: true })).text);
      expect(frames.some((f) => f.data === '[DONE]')).to.equal(false);
      expect(parse(frames.at(-1)!.data).error).to.deep.include({ code: 'incomplete_stream', type: 'incomplete_stream' });

      upstream.script('key-a', [{ drop: true, before: 2 }]);
      upstream.script('key-b', [{ drop: true, before: 2 }]);
      const whole = await post(relay, '/chat/completions', chat);
      expect(whole.status).to.equal(502);
      expect((whole.json.error as Json).code).to.equal('incomplete_stream');
      expect((whole.json.error as Json).message).to.match(/Upstream stream ended before response\.completed\.$/);
    });

    it('ends a Responses stream that fails after content with response.failed and an error event', async () => {
      upstream.script('key-a', [{ streamError: { message: 'boom', type: 'server_error', code: 'server_error' }, before: 1 }]);
      const frames = framesOf((await post(relay, '/responses', { model: 'gpt-test', input: 'x', stream: true })).text);
      expect(frames.map((f) => f.event).slice(-2)).to.deep.equal(['response.failed', 'error']);
      expect((parse(frames.at(-2)!.data).response as Json).status).to.equal('failed');
      expect(parse(frames.at(-1)!.data).error).to.include({ message: 'boom', code: 'server_error' });
    });

    it('answers 502 "Upstream connection failed" when no account can be reached', async () => {
      const dead = await startRelay([{ apiKey: 'key-a', baseUrl: 'http://127.0.0.1:9/v1' }], { hosted: { extraModels: ['gpt-test'] } });
      try {
        const answer = await post(dead, '/chat/completions', chat);
        expect(answer.status, answer.text).to.equal(502);
        expect((answer.json.error as Json).message).to.match(/Upstream connection failed: /);
      } finally {
        await dead.kernel.stop();
      }
    });

    it('fails a call whose upstream event is larger than hosted.maxEventBytes with 502', async () => {
      const bounded = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { hosted: { maxEventBytes: 1024 } });
      try {
        upstream.script('key-a', [{ text: 'x'.repeat(4096), chunks: 1 }]);
        const answer = await post(bounded, '/chat/completions', { ...chat, stream: true });
        expect(answer.status).to.equal(502);
        expect((answer.json.error as Json).code).to.equal('upstream_event_too_large');
        upstream.script('key-a', [{ text: 'x'.repeat(512), chunks: 1 }]);
        expect((await post(bounded, '/chat/completions', chat)).status).to.equal(200);
      } finally {
        await bounded.kernel.stop();
      }
    });

    it('gives up on a silent upstream after hosted.requestTimeoutSeconds with 502, and closes it', async () => {
      const impatient = await startRelay([{ apiKey: 'key-a', baseUrl: upstream.url }], { hosted: { requestTimeoutSeconds: 1 } });
      try {
        upstream.script('key-a', [{ delayMs: 10_000, then: { text: 'too late' } }]);
        const closed = upstream.closedEarly;
        const answer = await post(impatient, '/chat/completions', { ...chat, stream: true });
        expect(answer.status).to.equal(502);
        expect((answer.json.error as Json).message).to.match(/Upstream connection failed: no answer within 1 s/);
        upstream.script('key-a', [{ stall: true, before: 1 }]);
        const stalled = framesOf((await post(impatient, '/chat/completions', { ...chat, stream: true })).text);
        expect(parse(stalled.at(-1)!.data).error).to.deep.include({ code: 'upstream_connection_failed' });
        await until(() => upstream.closedEarly, { what: 'the stalled upstream stream to be closed', ok: (n) => n > closed });
      } finally {
        await impatient.kernel.stop();
      }
    });

    it('closes the upstream stream at once when the client goes away', async () => {
      upstream.script('key-a', [{ stall: true, before: 1 }]);
      const closed = upstream.closedEarly;
      const controller = new AbortController();
      const res = await fetch(`${relay.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...chat, stream: true }),
        signal: controller.signal,
      });
      expect(res.status).to.equal(200);
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await until(() => upstream.closedEarly, { what: 'the upstream stream to be closed', ok: (n) => n > closed });
    });
  });
});
