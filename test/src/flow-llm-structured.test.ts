/**
 * S1 (reference runtime-nodes §5.1, §11 "S1"): the `llm_call` schema pins, a structured call that
 * can never generate forever, output-token bounds, the truncation retry and its failure text, answer
 * parsing and the node's outputs; flows run through the HTTP API against a scripted endpoint.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';

const SCHEMA = { type: 'object', properties: { choice: { type: 'string' }, score: { type: 'integer' } }, required: ['choice', 'score'] };

/** start → llm_call (these pin defaults / effectConfig) → end with its outputs. */
function llmFlow(pins: Record<string, unknown>, effectConfig: Record<string, unknown> = {}) {
  return {
    id: 'structured',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'ask', type: 'llm_call', inputs: ['prompt', ...Object.keys(pins)], outputs: ['response', 'data', 'meta', 'success', 'error'], data: { pinDefaults: pins, effectConfig } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'data', 'meta', 'success'] }),
    ],
    edges: edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response', 'ask.data -> end.data', 'ask.meta -> end.meta', 'ask.success -> end.success'),
  };
}

const on = (model: string, extra: Record<string, unknown> = {}) => ({ prompt: 'Pick one.', _runtime: { provider: 'fake', model }, ...extra });

describe('llm_call structured output and output-token bounds (S1)', function () {
  this.timeout(120_000);
  const models = ['endless', 'json', 'wrapped', 'prose', 'cut-once', 'limits', 'fieldmap', 'badname', 'plain-cut', 'cap', 'fallback', 'no-fallback'];
  const { endpoint, gw } = llmGatewaySuite({ models });

  it('a structured call on a model that never stops by itself ends: bounded at 2048, retried at 4096 and 8192, then failed with the origin text', async () => {
    endpoint.script('endless', ['endless']);
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), on('endless'));
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal('LLM_CALL output was truncated (finish_reason=length). Attempted max_output_tokens: [2048, 4096, 8192]. Increase max_output_tokens/max_out_tokens (or set allow_truncation=true).');
    expect(endpoint.of('endless').map((r) => r.max_tokens)).to.deep.equal([2048, 4096, 8192]);
    // One effect (one started/failed pair): the truncation retries happen inside it, and the run policy does not repeat it.
    const calls = startedOf(ledger, 'llm_call');
    expect(calls).to.have.length(1);
    expect(calls[0]!.effect!.payload).to.include({ response_schema_name: 'LLM_StructuredOutput' });
    expect(calls[0]!.effect!.payload.response_schema).to.deep.equal(SCHEMA);
    expect(ledger.filter((i) => i.status === 'failed' && i.effect?.type === 'llm_call')).to.have.length(1);
  });

  it('resp_schema: the schema goes to the model, a JSON answer becomes data, response is its compact JSON, output_mode structured', async () => {
    endpoint.script('json', [{ content: '{ "choice": "été", "score": 3 }' }]);
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), on('json'));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.data).to.deep.equal({ choice: 'été', score: 3 });
    expect(run.output!.response).to.equal('{"choice":"été","score":3}');
    expect((run.output!.meta as Record<string, unknown>).output_mode).to.equal('structured');
    const sent = endpoint.of('json')[0]!;
    expect(sent.response_format?.json_schema?.schema).to.deep.equal(SCHEMA);
    expect(sent.max_tokens).to.equal(2048);
    const completed = ledger.find((i) => i.status === 'completed' && i.effect?.type === 'llm_call')!;
    expect(completed.result).to.include({ content: null });
  });

  it('response_schema (the other pin name) in the json_schema wrapper is unwrapped into the payload', async () => {
    endpoint.script('wrapped', [{ content: '{"choice":"b","score":1}' }]);
    const { run, ledger } = await gw.runFlow(llmFlow({ response_schema: { type: 'json_schema', json_schema: { name: 'x', schema: SCHEMA } } }), on('wrapped'));
    expect(run.status, run.error ?? '').to.equal('completed');
    const payload = startedOf(ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload.response_schema).to.deep.equal(SCHEMA);
    expect(payload.response_schema_name).to.equal('LLM_StructuredOutput');
    expect(run.output!.data).to.deep.equal({ choice: 'b', score: 1 });
  });

  it('an answer with JSON inside prose: data comes from parse_json of the content, which is kept', async () => {
    endpoint.script('prose', [{ content: 'Sure! Here it is: {"choice": "c", "score": 2} Hope that helps.' }]);
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), on('prose'));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.data).to.deep.equal({ choice: 'c', score: 2 });
    expect(run.output!.response).to.equal('{"choice":"c","score":2}');
    const completed = ledger.find((i) => i.status === 'completed' && i.effect?.type === 'llm_call')!;
    expect(completed.result!.content).to.equal('Sure! Here it is: {"choice": "c", "score": 2} Hope that helps.');
  });

  it('a cut answer is asked again with a grown bound (max(2×, +500)): the max_output_tokens pin 100 → 600, recorded in metadata._truncation', async () => {
    endpoint.script('cut-once', [{ content: '{"choice": "d', finish_reason: 'length' }, { content: '{"choice":"d","score":4}' }]);
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA, max_output_tokens: 100 }), on('cut-once'));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(endpoint.of('cut-once').map((r) => r.max_tokens)).to.deep.equal([100, 600]);
    expect(run.output!.data).to.deep.equal({ choice: 'd', score: 4 });
    const payload = startedOf(ledger, 'llm_call')[0]!.effect!.payload;
    expect(payload.params).to.include({ max_output_tokens: 100 });
    const completed = ledger.find((i) => i.status === 'completed' && i.effect?.type === 'llm_call')!;
    expect((completed.result!.metadata as Record<string, unknown>)._truncation).to.deep.equal({ attempts: 2, max_output_tokens: [100, 600], resolved: true });
  });

  it('no max_output_tokens on the node: the run\'s _limits.max_output_tokens bounds the call (and caps the retries)', async () => {
    endpoint.script('limits', ['endless']);
    const { run } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), on('limits', { _limits: { max_output_tokens: 300 } }));
    expect(run.status).to.equal('failed');
    expect(endpoint.of('limits').map((r) => r.max_tokens)).to.deep.equal([300, 300, 300]);
    expect(run.error).to.contain('Attempted max_output_tokens: [300, 300, 300].');
  });

  it('effectConfig max_output_tokens_cap bounds the growth; an unstructured call is bounded and retried the same way', async () => {
    endpoint.script('plain-cut', ['endless']);
    const { run } = await gw.runFlow(llmFlow({ max_out_tokens: 1000 }, { max_output_tokens_cap: 1500 }), on('plain-cut'));
    expect(run.status).to.equal('failed');
    expect(endpoint.of('plain-cut').map((r) => r.max_tokens)).to.deep.equal([1000, 1500, 1500]);
  });

  it('a field map {choice: "…", score: 0} becomes an object schema, every key required, types from the samples; a missing optional property appears as null', async () => {
    endpoint.script('fieldmap', [{ content: '{"choice":"e","score":5}' }]);
    const { run } = await gw.runFlow(llmFlow({ resp_schema: { choice: 'one of a, b', score: 0 } }), on('fieldmap'));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(endpoint.of('fieldmap')[0]!.response_format?.json_schema?.schema).to.deep.equal({ type: 'object', properties: { choice: { type: 'string' }, score: { type: 'integer' } }, required: ['choice', 'score'] });
    endpoint.script('cap', [{ content: '{"choice":"f"}' }]);
    const optional = await gw.runFlow(llmFlow({ resp_schema: { type: 'object', properties: { choice: { type: 'string' }, note: { type: 'string' } }, required: ['choice'] } }), on('cap'));
    expect(optional.run.output!.data).to.deep.equal({ choice: 'f', note: null });
  });

  it('effectConfig structured_output_fallback: a structured generation that failed as such is asked once more without the schema', async () => {
    endpoint.script('fallback', [{ status: 400, error: 'structured output generation failed: grammar' }, { content: 'Answer: {"choice":"g","score":7}' }]);
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }, { structured_output_fallback: true }), on('fallback'));
    expect(run.status, run.error ?? '').to.equal('completed');
    const [first, second] = endpoint.of('fallback');
    expect(first!.response_format).to.not.equal(undefined);
    expect(second!.response_format).to.equal(undefined);
    expect(run.output!.data).to.deep.equal({ choice: 'g', score: 7 });
    expect(startedOf(ledger, 'llm_call')[0]!.effect!.payload.structured_output_fallback).to.equal(true);
    const completed = ledger.find((i) => i.status === 'completed' && i.effect?.type === 'llm_call')!;
    expect((completed.result!.metadata as Record<string, unknown>)._structured_output_fallback).to.deep.include({ used: true });
    endpoint.script('no-fallback', [{ status: 400, error: 'structured output generation failed: grammar' }]);
    const without = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), on('no-fallback'));
    expect(without.run.status).to.equal('failed');
    expect(without.run.error).to.contain('structured output generation failed');
  });

  it('a schema whose property name is not an identifier fails the effect at once, as the origin refuses it', async () => {
    endpoint.script('badname', [{ content: '{}' }]);
    const { run } = await gw.runFlow(llmFlow({ resp_schema: { type: 'object', properties: { 'not a name': { type: 'string' } } } }), on('badname'));
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^Invalid property name "not a name"/);
    expect(endpoint.of('badname')).to.have.length(0);
  });
});

describe('llm_call structured output on the real tiny local model (end to end)', function () {
  this.timeout(240_000);
  const { gw } = llmGatewaySuite({ models: ['unused'] });

  it('a schema-bound call on local/keel-tiny-chat with no max_output_tokens ends (the grammar-bound engine no longer generates forever)', async () => {
    const { run, ledger } = await gw.runFlow(llmFlow({ resp_schema: SCHEMA }), { prompt: 'What is the capital of Italy?', _runtime: { provider: 'local', model: 'keel-tiny-chat' } }, 180_000);
    expect(['completed', 'failed']).to.include(run.status);
    const finished = ledger.filter((i) => i.effect?.type === 'llm_call' && i.status !== 'started');
    expect(finished, 'the call ended with a final record').to.have.length(1);
    // This model cannot write the JSON (it knows 52 answers), so it runs to its bound: failed with the origin's text, or, should it close the object, completed with data.
    if (run.status === 'failed') expect(run.error).to.equal('LLM_CALL output was truncated (finish_reason=length). Attempted max_output_tokens: [2048, 4096, 8192]. Increase max_output_tokens/max_out_tokens (or set allow_truncation=true).');
    else expect(run.output!.data).to.be.an('object');
  });
});
