import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runKeel, runKeelWithInput } from './helpers/cli.js';
import { tempDir } from './helpers/paths.js';

// `keel prompt`, the inference plugin's local command-line model client, run as a user (or a relay)
// runs it: the prompt on stdin, a JSON result envelope or stream-json lines, errors as is_error
// envelopes with exit 1, on the bundled tiny model (greedy, so its answers are exact).
describe('keel prompt: a local command-line model client', function () {
  this.timeout(180_000);
  let dir: { dir: string; remove: () => void };
  let base: string[];
  const RELAY_FLAGS = ['--tools', '', '--setting-sources', '', '--strict-mcp-config', '--disable-slash-commands', '--no-session-persistence'];

  before(() => {
    dir = tempDir('keel-prompt-');
    const config = path.join(dir.dir, 'prompt.json');
    writeFileSync(config, JSON.stringify({ plugins: [{ use: '@keel/plugin-inference', config: { generation: { temperature: 0 } } }] }));
    base = ['prompt', '--config', config, '--data-dir', path.join(dir.dir, 'data')];
  });
  after(() => dir?.remove());

  const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('prints its version, an auth status with nothing to sign in to, and its models', async () => {
    const version = await runKeel([...base, '--version']);
    expect(version.code, version.stderr).to.equal(0);
    expect(version.stdout.trim()).to.match(/^\d+\.\d+\.\d+ \(keel prompt\)$/);
    const auth = await runKeel([...base, 'auth', 'status', '--json']);
    expect(JSON.parse(auth.stdout)).to.deep.include({ loggedIn: true, authMethod: 'none', apiProvider: 'local' });
    const models = await runKeel([...base, 'models', '--json']);
    expect(models.code, models.stderr).to.equal(0);
    const listed = (JSON.parse(models.stdout) as { models: Array<{ id: string; provider: string }> }).models;
    expect(listed).to.deep.include.members([{ id: 'keel-tiny-chat', display_name: 'keel-tiny-chat', provider: 'local', context_length: 512 }]);
  });

  it('answers the stdin prompt with one result envelope (--output-format json), accepting the relay flags', async () => {
    const run = await runKeelWithInput([...base, '-p', '--model', 'keel-tiny-chat', ...RELAY_FLAGS, '--effort', 'HIGH', '--output-format', 'json'], 'What is the capital of France?');
    expect(run.code, run.stderr).to.equal(0);
    const [envelope, ...more] = lines(run.stdout);
    expect(more).to.have.length(0);
    expect(envelope).to.deep.include({ type: 'result', subtype: 'success', is_error: false, result: 'The capital of France is Paris.', stop_reason: 'end_turn' });
    const usage = envelope!.usage as { input_tokens: number; output_tokens: number };
    expect(usage.input_tokens).to.be.above(0);
    expect(usage.output_tokens).to.be.above(0);
    expect(envelope).to.not.have.property('structured_output');
  });

  it('takes a system prompt or schema that begins with a dash (the relay passes the client\'s text as the next word)', async () => {
    const run = await runKeelWithInput([...base, '-p', '--model', 'keel-tiny-chat', ...RELAY_FLAGS, '--system-prompt', '- be brief', '--output-format', 'json'], 'What is the capital of France?');
    expect(run.code, run.stderr).to.equal(0);
    expect(lines(run.stdout)[0]).to.deep.include({ type: 'result', is_error: false });
  });

  it('streams text deltas, the message delta, the assistant message and the result (stream-json)', async () => {
    const run = await runKeelWithInput([...base, '-p', '--model', 'keel-tiny-chat', '--system-prompt', 'You are a pirate.', '--output-format', 'stream-json', '--include-partial-messages', '--verbose'], 'What is the capital of France?');
    expect(run.code, run.stderr).to.equal(0);
    const events = lines(run.stdout);
    const inner = events.filter((e) => e.type === 'stream_event').map((e) => e.event as Record<string, unknown>);
    const text = inner.filter((e) => e.type === 'content_block_delta').map((e) => (e.delta as { type: string; text: string })).map((d) => (expect(d.type).to.equal('text_delta'), d.text)).join('');
    expect(text).to.equal('Arr! The capital of France is Paris.');
    expect(inner.find((e) => e.type === 'message_delta')).to.deep.include({ delta: { stop_reason: 'end_turn', stop_sequence: null } });
    const assistant = events.find((e) => e.type === 'assistant')!.message as { content: unknown[] };
    expect(assistant.content).to.deep.equal([{ type: 'text', text }]);
    expect(events.at(-1)).to.deep.include({ type: 'result', is_error: false, result: text });
  });

  it('enforces --json-schema with the engine grammar: structured_output, input_json_delta fragments of a tool-use block', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { colour: { enum: ['red', 'blue'] } }, required: ['colour'] });
    const run = await runKeelWithInput([...base, '-p', '--model', 'keel-tiny-chat', '--json-schema', schema, '--output-format', 'stream-json', '--include-partial-messages', '--verbose'], 'Pick a colour.');
    expect(run.code, run.stderr).to.equal(0);
    const events = lines(run.stdout);
    const inner = events.filter((e) => e.type === 'stream_event').map((e) => e.event as Record<string, unknown>);
    expect((inner.find((e) => e.type === 'content_block_start')!.content_block as { type: string }).type).to.equal('tool_use');
    const json = inner.filter((e) => e.type === 'content_block_delta').map((e) => (e.delta as { partial_json: string }).partial_json).join('');
    const result = events.at(-1)!;
    expect(['red', 'blue']).to.include((result.structured_output as { colour: string }).colour);
    expect(JSON.parse(json)).to.deep.equal(result.structured_output);
  });

  it('always ends: an answer is capped at the model context (a free-text schema field once generated forever)', async () => {
    const schema = JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    const run = await runKeelWithInput([...base, '-p', '--model', 'keel-tiny-chat', '--json-schema', schema, '--output-format', 'json'], 'Give me JSON', {}, undefined, 150_000);
    const [envelope] = lines(run.stdout);
    if (run.code === 0) expect(envelope!.structured_output).to.have.property('city');
    else {
      expect(run.code).to.equal(1);
      expect(envelope).to.deep.include({ is_error: true });
      expect(envelope!.result).to.match(/stopped before it formed JSON matching the schema \(stop reason max_tokens\)/);
    }
  });

  it('reports failures as is_error envelopes with exit 1: unknown model, unsupported effort, empty prompt, bad schema', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [['--model', 'no-such-model'], 'hello', /no-such-model/],
      [['--model', 'keel-tiny-chat', '--effort', 'turbo'], 'hello', /Supported values: low, medium, high, xhigh, max/],
      [['--model', 'keel-tiny-chat'], '   ', /prompt is empty/],
      [['--model', 'keel-tiny-chat', '--json-schema', '{not json'], 'hello', /--json-schema is not valid JSON/],
    ];
    for (const [flags, input, message] of cases) {
      const run = await runKeelWithInput([...base, '-p', ...flags, '--output-format', 'json'], input);
      expect(run.code, `${flags.join(' ')}: ${run.stdout}${run.stderr}`).to.equal(1);
      const [envelope] = lines(run.stdout);
      expect(envelope).to.deep.include({ type: 'result', is_error: true });
      expect(envelope!.subtype).to.match(/^error/);
      expect(envelope!.result).to.match(message);
    }
  });

  it('refuses a call without -p or --model as a usage mistake (exit 2)', async () => {
    const run = await runKeelWithInput([...base, '--model', 'keel-tiny-chat'], 'hello');
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/pass -p/);
  });
});
