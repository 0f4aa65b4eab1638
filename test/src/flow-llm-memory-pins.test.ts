/**
 * The memory pins of `llm_call` (reference runtime-nodes §5.3): before the call the node runs
 * `memory_query`, `memory_rehydrate` of the first match and `memory_kg_query`, each with its own
 * ledger records on the node, and the call then sees what they recalled. Through HTTP, with the
 * memory plugin and a scripted endpoint.
 */
import { expect } from 'chai';
import { memoryPlugin } from '@keel/plugin-memory';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';

/** start → memory_note (a note about tea) → llm_call (these pins) → end with its response. */
function memoryFlow(pins: Record<string, unknown>) {
  return {
    id: 'recall',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'note', type: 'memory_note', inputs: ['content'], outputs: ['note_id'], data: { pinDefaults: { content: 'The tea in the office is green tea.' } } }),
      node({ id: 'ask', type: 'llm_call', inputs: ['prompt', ...Object.keys(pins)], outputs: ['response'], data: { pinDefaults: pins } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> note', 'note -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response'),
  };
}

describe('llm_call memory pins: recall before the call (RN §5.3)', function () {
  this.timeout(120_000);
  const { endpoint, gw } = llmGatewaySuite({ models: ['m'], plugins: [memoryPlugin] }, (e) => e.script('m', [{ content: 'Green.' }]));

  it('use_span_memory: memory_query then memory_rehydrate of the first match on the node, then the call, which sees the recalled note', async () => {
    const { run, ledger } = await gw.runFlow(memoryFlow({ use_span_memory: true, memory_query: 'tea', use_context: true }), { prompt: 'Which tea?', _runtime: { provider: 'fake', model: 'm' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    const onAsk = ledger.filter((i) => i.node_id === 'ask' && i.status === 'started').map((i) => i.effect!.type);
    expect(onAsk).to.deep.equal(['memory_query', 'memory_rehydrate', 'llm_call']);
    const query = startedOf(ledger, 'memory_query')[0]!.effect!.payload;
    expect(query).to.include({ query: 'tea', scope: 'run', return: 'meta' });
    const noted = ledger.find((i) => i.node_id === 'note' && i.status === 'completed')!.result as { results: Array<{ meta: { span_id: string } }> };
    const noteId = noted.results[0]!.meta.span_id;
    expect(noteId).to.match(/^[0-9a-f]{32}$/);
    const rehydrate = startedOf(ledger, 'memory_rehydrate')[0]!.effect!.payload;
    expect(rehydrate).to.include({ placement: 'after_summary', max_messages: 80 });
    expect(rehydrate.span_ids).to.deep.equal([noteId]);
    const sent = endpoint.of('m').at(-1)!.messages.map((m) => m.content).join('\n');
    expect(sent).to.contain('The tea in the office is green tea.');
    expect(run.output!.response).to.equal('Green.');
  });

  it('use_kg_memory: a memory_kg_query (budget 1200) runs on the node before the call', async () => {
    const { run, ledger } = await gw.runFlow(memoryFlow({ use_kg_memory: 'true' }), { prompt: 'Which tea?', _runtime: { provider: 'fake', model: 'm' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    const onAsk = ledger.filter((i) => i.node_id === 'ask' && i.status === 'started').map((i) => i.effect!.type);
    expect(onAsk).to.deep.equal(['memory_kg_query', 'llm_call']);
    expect(startedOf(ledger, 'memory_kg_query')[0]!.effect!.payload).to.include({ query_text: 'Which tea?', scope: 'run', max_input_tokens: 1200 });
  });

  it('no memory pins: the call runs alone', async () => {
    const { ledger } = await gw.runFlow(memoryFlow({}), { prompt: 'Which tea?', _runtime: { provider: 'fake', model: 'm' } });
    expect(ledger.filter((i) => i.node_id === 'ask' && i.status === 'started').map((i) => i.effect!.type)).to.deep.equal(['llm_call']);
  });
});

describe('llm_call memory pins without the memory plugin', function () {
  this.timeout(120_000);
  const { endpoint, gw } = llmGatewaySuite({ models: ['m'] });

  it('a call asking for span memory is not made: the run ends naming the plugin that provides it', async () => {
    const flow = memoryFlow({ use_span_memory: true });
    flow.nodes = flow.nodes.filter((n) => n.id !== 'note');
    flow.edges = edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response');
    const { run } = await gw.runFlow(flow, { prompt: 'Which tea?', _runtime: { provider: 'fake', model: 'm' } });
    expect(JSON.stringify([run.error, run.output])).to.contain("which the 'memory' plugin provides; that plugin is not loaded");
    expect(endpoint.of('m')).to.have.length(0);
  });
});

