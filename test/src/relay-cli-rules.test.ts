import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { post, startRelay, type RelayAnswer, type RelayKernel } from './helpers/relay-hosted.js';
import { makeStandIn, type StandIn } from './helpers/relay-cli-standin.js';

// The local client's request rules (reference §4.4–§4.6) through the relay's HTTP API: every
// refusal is a 422 (413 for an argv over the OS limit) with the relay envelope, and no client
// process is started for a refused request.
describe('relay cli: request rules of the local client', function () {
  this.timeout(120_000);
  let standIn: StandIn;
  let relay: RelayKernel;

  before(async () => {
    standIn = makeStandIn();
    relay = await startRelay([], { hosted: { enabled: false }, cli: { command: standIn.command('report'), models: ['fake'], maxSchemaBytes: 300_000 } });
  });
  after(async () => {
    await relay?.kernel.stop();
  });

  const callCount = () => {
    const file = path.join(standIn.dir, 'calls.log');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).length : 0;
  };

  async function expectRefused(route: string, body: Record<string, unknown>, status: number, message: RegExp, code?: string): Promise<RelayAnswer> {
    const before = callCount();
    const answer = await post(relay, route, body);
    expect(answer.status, `${JSON.stringify(body).slice(0, 200)} → ${answer.text.slice(0, 300)}`).to.equal(status);
    const error = answer.json.error as Record<string, unknown>;
    expect(error.message).to.match(message);
    expect(answer.json.detail).to.equal(error.message);
    if (code) expect(error.code).to.equal(code);
    expect(callCount(), 'no client process for a refused request').to.equal(before);
    return answer;
  }

  const chat = (extra: Record<string, unknown> = {}) => ({ model: 'cli:fake', messages: [{ role: 'user', content: 'hi' }], ...extra });

  it('refuses each chat field the client cannot honour, naming it and the route', async () => {
    const fields: Record<string, unknown> = {
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      functions: [{ name: 'f' }],
      tool_choice: 'auto',
      function_call: 'auto',
      conversation: 'conv_1',
      previous_response_id: 'resp_1',
      parallel_tool_calls: true,
    };
    for (const [field, value] of Object.entries(fields)) {
      await expectRefused('/chat/completions', chat({ [field]: value }), 422, new RegExp(`does not support \`${field}\` on \`/v1/chat/completions\``), 'unsupported_for_provider');
    }
    // Refused by the route's common rules before the lane (also 422), never sent to the client.
    for (const [field, value] of Object.entries({ store: true, modalities: ['audio'], audio: { voice: 'x' }, prediction: { type: 'content', content: 'x' }, n: 2 })) {
      await expectRefused('/chat/completions', chat({ [field]: value }), 422, /./);
    }
  });

  it('takes "not provided" values of those fields (null, false, [] and {})', async () => {
    const answer = await post(relay, '/chat/completions', chat({ tools: [], functions: null, parallel_tool_calls: false, tool_choice: null, prediction: null }));
    expect(answer.status, answer.text).to.equal(200);
  });

  it('refuses each completions field the client cannot honour', async () => {
    const base = { model: 'cli:fake', prompt: 'x' };
    for (const [field, value] of Object.entries({ conversation: 'conv_1', stop: ['\n'], response_format: { type: 'json_object' } })) {
      await expectRefused('/completions', { ...base, [field]: value }, 422, new RegExp(`does not support \`${field}\` on \`/v1/completions\``), 'unsupported_for_provider');
    }
    for (const [field, value] of Object.entries({ best_of: 2, echo: true, logprobs: 1, suffix: 'x', store: true, n: 2 })) {
      await expectRefused('/completions', { ...base, [field]: value }, 422, /./);
    }
    await expectRefused('/completions', { model: 'cli:fake', prompt: ['a', 'b'] }, 422, /./);
    await expectRefused('/completions', { model: 'cli:fake', prompt: '' }, 422, /non-empty string/);
  });

  it('refuses the Responses route for a cli model', async () => {
    await expectRefused('/responses', { model: 'cli:fake', input: 'hi' }, 422, /supports `\/v1\/chat\/completions` and `\/v1\/completions` only/, 'unsupported_for_provider');
  });

  it('takes only text messages of the four roles, with a user or assistant turn', async () => {
    await expectRefused('/chat/completions', chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }] }), 422, /text-only/, 'unsupported_for_provider');
    await expectRefused('/chat/completions', chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }), 422, /text-only/);
    await expectRefused('/chat/completions', chat({ messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c1', content: 'r' }] }), 422, /tool_calls|role/);
    await expectRefused('/chat/completions', chat({ messages: [{ role: 'function', name: 'f', content: 'x' }] }), 422, /./);
    await expectRefused('/chat/completions', chat({ messages: [{ role: 'system', content: 'only a system prompt' }] }), 422, /at least one user or assistant message/, 'unsupported_for_provider');
  });

  it('checks reasoning_effort against the supported list (case-insensitive; null is absent)', async () => {
    const refused = await expectRefused('/chat/completions', chat({ reasoning_effort: 'turbo' }), 422, /Supported values: low, medium, high, xhigh, max\.$/, 'unsupported_for_provider');
    expect((refused.json.error as { message: string }).message).to.match(/^Unsupported `reasoning_effort` "turbo" for local command-line client models on `\/v1\/chat\/completions`/);
    await expectRefused('/completions', { model: 'cli:fake', prompt: 'x', reasoning_effort: 'minimal' }, 422, /on `\/v1\/completions`\. Supported values/);
    await expectRefused('/chat/completions', chat({ reasoning_effort: 3 }), 422, /Supported values/);
    for (const effort of ['Max', null]) {
      const answer = await post(relay, '/chat/completions', chat({ reasoning_effort: effort }));
      expect(answer.status, answer.text).to.equal(200);
    }
  });

  it('refuses response_format types other than text, json_object and json_schema, a missing type included', async () => {
    await expectRefused('/chat/completions', chat({ response_format: { strict: true } }), 422, /without a `type`\. Supported types: text, json_object, json_schema\.$/, 'unsupported_for_provider');
    await expectRefused('/chat/completions', chat({ response_format: { type: 'xml' } }), 422, /Supported types: text, json_object, json_schema\./, 'unsupported_for_provider');
    await expectRefused('/chat/completions', chat({ response_format: 'json' }), 422, /must be an object/, 'invalid_request_error');
    await expectRefused('/chat/completions', chat({ response_format: { type: 'json_schema' } }), 422, /json_schema` must be an object/, 'invalid_request_error');
    await expectRefused('/chat/completions', chat({ response_format: { type: 'json_schema', json_schema: { schema: [1] } } }), 422, /must be a JSON Schema object/, 'invalid_request_error');
    for (const plain of [{}, { type: 'text' }]) {
      const answer = await post(relay, '/chat/completions', chat({ response_format: plain }));
      expect(answer.status, answer.text).to.equal(200);
    }
  });

  it('refuses a schema over cli.maxSchemaBytes naming its size and the maximum', async () => {
    const schema = { type: 'object', description: 'x'.repeat(310_000) };
    const size = Buffer.byteLength(JSON.stringify(schema));
    await expectRefused('/chat/completions', chat({ response_format: { type: 'json_schema', json_schema: { schema } } }), 422, new RegExp(`is ${size} bytes serialised; .* at most 300000 bytes \\(setting cli\\.maxSchemaBytes\\)`), 'schema_too_large');
  });

  it('answers 413 when a schema within the cap still exceeds what the OS passes on argv', async function () {
    if (process.platform !== 'linux') this.skip(); // Linux caps one argument at 128 KiB
    const schema = { type: 'object', description: 'x'.repeat(200_000) };
    await expectRefused('/chat/completions', chat({ response_format: { type: 'json_schema', json_schema: { schema } } }), 413, /over what this operating system passes to a process/, 'argv_too_large');
  });

  it('passes a json_object request as the schema {"type":"object"}', async () => {
    const answer = await post(relay, '/chat/completions', chat({ response_format: { type: 'json_object' } }));
    expect(answer.status, answer.text).to.equal(200);
    const report = JSON.parse((answer.json.choices as Array<{ message: { content: string } }>)[0]!.message.content) as { args: string[] };
    expect(report.args[report.args.indexOf('--json-schema') + 1]).to.equal('{"type":"object"}');
  });
});
