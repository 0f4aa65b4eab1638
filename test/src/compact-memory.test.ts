import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

interface Message {
  role: string;
  content: string;
  kind?: string;
  metadata?: Record<string, unknown>;
}

const llm = (id: string, prompt: string) => node({ id, type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt, temperature: 0 }, effectConfig: { include_context: true } } });

/**
 * Three llm_calls with include_context, an ask_user, a fourth call on the answer, then the end
 * reports the answer and the run's memory (`get_context.messages`).
 */
const chatFlow = {
  id: 'chat',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    llm('a', 'What is the capital of France?'),
    llm('b', 'What is the capital of Italy?'),
    llm('c', 'What is the capital of Spain?'),
    node({ id: 'more', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Anything else?' } } }),
    node({ id: 'd', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { temperature: 0 }, effectConfig: { include_context: true } } }),
    node({ id: 'memory', type: 'get_context', exec: false, outputs: ['messages'] }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'messages'] }),
  ],
  edges: edges('start -> a', 'a -> b', 'b -> c', 'c -> more', 'more -> d', 'd -> end', 'more.response -> d.prompt', 'd.response -> end.response', 'memory.messages -> end.messages'),
};

/** One call with include_context, then a wait on the user. */
const shortFlow = {
  id: 'short',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: [] }),
    llm('a', 'What is the capital of France?'),
    node({ id: 'more', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Anything else?' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> a', 'a -> more', 'more -> end', 'more.response -> end.response'),
};

describe('compact_memory (seed §4.4, reference §6): a child run summarises the older memory (tiny model, real engines)', function () {
  this.timeout(60_000);
  let k: TestKernel;

  const { uploadBundle, startRun, getRun, ledger, command } = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    await uploadBundle('chat', chatFlow);
    await uploadBundle('short', shortFlow);
  });
  after(() => k?.stop());

  const start = (bundleId: string) => startRun(bundleId, { provider: 'local', model: 'keel-tiny-chat' });
  const children = async (id: string) => (await k.inject({ url: `/api/gateway/runs?parent_run_id=${id}`, token: k.adminToken })).json<{ items: RunRecord[] }>().items;
  const compactions = (items: LedgerItem[]) => items.filter((i) => i.effect?.type === 'memory_compact');

  it('compacts a waiting run: the child run summarises, the memory keeps the summary and the last keep_last messages', async () => {
    const runId = await start('chat');
    await until(() => getRun(runId), (r) => r.status === 'waiting' && r.waiting?.reason === 'user');

    expect((await command(runId, 'compact_memory', { keep_last: 2, reason: 'the context is getting long' })).accepted).to.equal(true);
    const parentItems = await until(() => ledger(runId), (items) => compactions(items).some((i) => i.status !== 'started'));
    const [started, done] = compactions(parentItems) as [LedgerItem, LedgerItem];
    expect(done.status, JSON.stringify(done)).to.equal('completed');

    // The child run: linked to its parent, listed under it, its ledger holds the summarising llm_call.
    const kids = await children(runId);
    expect(kids).to.have.length(1);
    const child = kids[0]!;
    expect(child).to.include({ parent_run_id: runId, workflow_id: 'memory_compaction', status: 'completed' });
    const summary = String(child.output!.summary);
    expect(summary.length).to.be.greaterThan(0);
    expect(child.output).to.deep.include({ success: true, compacted: 4 });
    const childCalls = (await ledger(child.run_id)).filter((i) => i.effect?.type === 'llm_call');
    expect(childCalls.map((i) => [i.node_id, i.status])).to.deep.equal([['summarize', 'started'], ['summarize', 'completed']]);
    const sent = childCalls[0]!.effect!.payload.messages as Message[];
    expect(sent[0]!.role).to.equal('system');
    const answer = (nodeId: string) => parentItems.find((i) => i.effect?.type === 'llm_call' && i.node_id === nodeId && i.status === 'completed')!.result!.content;
    expect(answer('a')).to.equal('The capital of France is Paris.');
    expect(sent[1]).to.deep.equal({ role: 'user', content: `user: What is the capital of France?\nassistant: ${answer('a')}\nuser: What is the capital of Italy?\nassistant: ${answer('b')}` });
    expect(childCalls[1]!.result).to.deep.include({ content: summary });

    // The parent's record pair: started when the child was launched, completed when the summary replaced the memory.
    expect(started).to.deep.include({ node_id: 'compact_memory', status: 'started' });
    expect(started.idempotency_key).to.match(/^system:memory_compact:/);
    expect(started.effect!.payload).to.deep.include({ keep_last: 2, reason: 'the context is getting long', messages_total: 6, compacting: 4, sub_run_id: child.run_id });
    expect(done.step_id).to.equal(started.step_id);
    const summaryMessage = { role: 'system', kind: 'memory_summary', content: summary, metadata: { compacted: 4, by_run: child.run_id } };
    expect(done.result).to.deep.include({ compacted: 4, messages_before: 6, messages_after: 3, sub_run_id: child.run_id, summary: summaryMessage });

    // The next call sees the compacted memory; the run's final memory shows it.
    await command(runId, 'resume', { payload: { response: 'What is the capital of Japan?' } });
    const run = await until(() => getRun(runId), (r) => r.status === 'completed');
    const after = (await ledger(runId)).filter((i) => i.effect?.type === 'llm_call' && i.node_id === 'd' && i.status === 'started')[0]!;
    expect(after.effect!.payload.messages).to.deep.equal([
      { role: 'system', content: summary },
      { role: 'user', content: 'What is the capital of Spain?' },
      { role: 'assistant', content: answer('c') },
      { role: 'user', content: 'What is the capital of Japan?' },
    ]);
    const memory = run.output!.messages as Message[];
    expect(memory).to.have.length(5);
    expect(memory[0]).to.deep.equal(summaryMessage);
    expect(memory.slice(1).map((m) => [m.role, m.metadata])).to.deep.equal([
      ['user', { kind: 'llm_turn', node_id: 'c' }],
      ['assistant', { kind: 'llm_turn', node_id: 'c' }],
      ['user', { kind: 'llm_turn', node_id: 'd' }],
      ['assistant', { kind: 'llm_turn', node_id: 'd' }],
    ]);
    expect(run.output!.response).to.equal('The capital of Japan is Tokyo.');
  });

  it('applies as a no-op with a ledger note when the memory holds no more than keep_last messages', async () => {
    const runId = await start('short');
    await until(() => getRun(runId), (r) => r.status === 'waiting');
    await command(runId, 'compact_memory', { reason: 'tidy up' });
    const items = await until(() => ledger(runId), (list) => compactions(list).length > 0);
    const [note] = compactions(items);
    expect(note).to.deep.include({ node_id: 'compact_memory', status: 'completed' });
    expect(note!.effect!.payload).to.deep.include({ keep_last: 6, reason: 'tidy up', messages_total: 2 });
    expect(note!.result).to.deep.include({ compacted: 0, skipped: true, reason_code: 'nothing_to_compact' });
    expect(String(note!.result!.message)).to.contain('2 message(s)');
    expect(await children(runId)).to.deep.equal([]);
    expect((await getRun(runId)).status).to.equal('waiting');
  });

  it('refuses a terminal run like other commands on ended runs: accepted by the queue, never applied', async () => {
    const ended = await start('short');
    await until(() => getRun(ended), (r) => r.status === 'waiting');
    await command(ended, 'cancel');
    await until(() => getRun(ended), (r) => r.status === 'cancelled');
    const before = await ledger(ended);
    expect((await command(ended, 'compact_memory', { keep_last: 0 })).accepted).to.equal(true);
    // Commands apply in order: once a later one has applied, the refused one was seen.
    const probe = await start('short');
    await until(() => getRun(probe), (r) => r.status === 'waiting');
    await command(probe, 'compact_memory', { keep_last: 6 });
    await until(() => ledger(probe), (list) => compactions(list).length > 0);
    expect(await ledger(ended)).to.deep.equal(before);
    expect(await children(ended)).to.deep.equal([]);
  });
});
