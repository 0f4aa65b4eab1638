/**
 * S3 (reference runtime-nodes §5.2, §2 rule 4, §11 "S3"): `include_context` and `use_context` on
 * `llm_call`, their coercion, the run's active context sent as `messages`, the two `llm_turn`
 * messages appended after the call, the `context` pin and its quirk; and the wired tools in the
 * payload. Flows run through the HTTP API against a scripted endpoint.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';

/** start → llm_call (these pin defaults) → end with its response, error and the run's context messages afterwards. */
function contextFlow(pins: Record<string, unknown>) {
  return {
    id: 'ctx',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'ask', type: 'llm_call', inputs: ['prompt', ...Object.keys(pins)], outputs: ['response', 'error'], data: { pinDefaults: pins } }),
      node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'error', 'messages'] }),
    ],
    edges: edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response', 'ask.error -> end.error', 'ctx.messages -> end.messages'),
  };
}

const HISTORY = [
  { role: 'user', content: 'earlier question' },
  { role: 'system', content: 'Be brief.' },
  { role: 'assistant', content: 'earlier answer' },
];
const input = (model: string) => ({ prompt: 'Now this.', context: { messages: HISTORY }, _runtime: { provider: 'fake', model } });

describe('llm_call include_context / use_context and the context pin (S3)', function () {
  this.timeout(120_000);
  const { endpoint, gw } = llmGatewaySuite({ models: ['m', 'json'] }, (e) => e.script('m', [{ content: 'the answer' }]));

  it('use_context "true": messages = system ones first, then the node system, the rest, the prompt; no prompt field; two llm_turn messages appended', async () => {
    const { run, ledger } = await gw.runFlow(contextFlow({ use_context: 'true', system: 'You are X.' }), input('m'));
    expect(run.status, run.error ?? '').to.equal('completed');
    const payload = startedOf(ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload.include_context).to.equal(true);
    expect(payload).to.not.have.property('prompt');
    expect(payload).to.not.have.property('system_prompt');
    expect(payload.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'You are X.' },
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: 'earlier answer' },
      { role: 'user', content: 'Now this.' },
    ]);
    const messages = run.output!.messages as Array<Record<string, unknown>>;
    expect(messages).to.have.length(5);
    expect(messages.slice(3)).to.deep.equal([
      { role: 'user', content: 'Now this.', metadata: { kind: 'llm_turn', node_id: 'ask' } },
      { role: 'assistant', content: 'the answer', metadata: { kind: 'llm_turn', node_id: 'ask' } },
    ]);
  });

  it('use_context "false" (a string) is false: the call goes as prompt + system_prompt and the context is left as it was', async () => {
    const { run, ledger } = await gw.runFlow(contextFlow({ use_context: 'false', system: 'You are X.' }), input('m'));
    const payload = startedOf(ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload).to.include({ include_context: false, prompt: 'Now this.', system_prompt: 'You are X.' });
    expect(payload).to.not.have.property('messages');
    expect(run.output!.messages).to.deep.equal(HISTORY);
  });

  it('include_context is read and preferred over use_context; any other string ("maybe") is false', async () => {
    const preferred = await gw.runFlow(contextFlow({ include_context: 'yes', use_context: false }), input('m'));
    expect(startedOf(preferred.ledger, 'llm_call')[0]!.effect!.payload.include_context).to.equal(true);
    const over = await gw.runFlow(contextFlow({ include_context: 'false', use_context: true }), input('m'));
    expect(startedOf(over.ledger, 'llm_call')[0]!.effect!.payload.include_context).to.equal(false);
    const maybe = await gw.runFlow(contextFlow({ include_context: 'maybe' }), input('m'));
    expect(startedOf(maybe.ledger, 'llm_call')[0]!.effect!.payload.include_context).to.equal(false);
  });

  it('the context pin replaces the run context when the node names provider and model, even with use_context off; its attachments (even []) become media', async () => {
    const { run, ledger } = await gw.runFlow(contextFlow({ provider: 'fake', model: 'm', context: { messages: [{ role: 'user', content: 'from the pin' }], attachments: [] } }), input('m'));
    expect(run.status, run.error ?? '').to.equal('completed');
    const payload = startedOf(ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload.messages).to.deep.equal([{ role: 'user', content: 'from the pin' }, { role: 'user', content: 'Now this.' }]);
    expect(payload.media).to.deep.equal([]);
    expect(payload.include_context).to.equal(false);
  });

  it('quirk: with provider and model both blank on the node the context pin is ignored; with only one set the call goes out and the node output says why', async () => {
    const blank = await gw.runFlow(contextFlow({ context: { messages: [{ role: 'user', content: 'from the pin' }] } }), input('m'));
    const payload = startedOf(blank.ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload).to.include({ prompt: 'Now this.' });
    expect(payload).to.not.have.property('messages');
    const half = await gw.runFlow(contextFlow({ provider: 'fake' }), input('m'));
    expect(half.run.status, half.run.error ?? '').to.equal('completed');
    expect(half.run.output!.error).to.equal('Provider and model must both be set, or both left blank for Gateway/Core defaults');
    expect(half.run.output!.response).to.equal('the answer');
  });

  it('max_in_tokens (with provider and model named) trims the oldest non-system messages; the run\'s _limits.max_input_tokens does the same when the node names none', async () => {
    const long = [{ role: 'system', content: 'S' }, { role: 'user', content: 'x'.repeat(400) }, { role: 'assistant', content: 'y'.repeat(400) }, { role: 'user', content: 'z'.repeat(40) }];
    const pinned = await gw.runFlow(contextFlow({ use_context: true, provider: 'fake', model: 'm', max_in_tokens: 150 }), { ...input('m'), context: { messages: long } });
    const sent = startedOf(pinned.ledger, 'llm_call')[0]!.effect!.payload;
    expect(sent.max_input_tokens).to.equal(150);
    expect((sent.messages as Array<{ content: string }>).map((m) => m.content[0])).to.deep.equal(['S', 'y', 'z', 'N']);
    const fromRun = await gw.runFlow(contextFlow({ use_context: true }), { ...input('m'), context: { messages: long }, _limits: { max_input_tokens: 50 } });
    const trimmed = startedOf(fromRun.ledger, 'llm_call')[0]!.effect!.payload;
    expect(trimmed).to.not.have.property('max_input_tokens');
    expect((trimmed.messages as Array<{ content: string }>).map((m) => m.content[0])).to.deep.equal(['S', 'z', 'N']);
  });

  it('a structured answer joins the context as its data in 2-space JSON (its content is null)', async () => {
    endpoint.script('json', [{ content: '{"a":1}' }]);
    const { run } = await gw.runFlow(contextFlow({ use_context: true, resp_schema: { type: 'object', properties: { a: { type: 'integer' } } } }), input('json'));
    expect(run.status, run.error ?? '').to.equal('completed');
    const messages = run.output!.messages as Array<Record<string, unknown>>;
    expect(messages[messages.length - 1]).to.deep.equal({ role: 'assistant', content: '{\n  "a": 1\n}', metadata: { kind: 'llm_turn', node_id: 'ask' } });
  });

  it('the payload lists the wired tools as specs (Keel file tools described, other names kept by name)', async () => {
    const { ledger } = await gw.runFlow(contextFlow({ tools: ['read_file', 'web_search'] }), input('m'));
    const tools = startedOf(ledger, 'llm_call')[0]!.effect!.payload.tools as Array<Record<string, unknown>>;
    expect(tools.map((t) => t.name)).to.deep.equal(['read_file', 'web_search']);
    expect(tools[0]!.description).to.be.a('string').and.not.equal('');
    expect(tools[0]!.parameters).to.have.nested.property('properties.path');
  });
});
