import { expect } from 'chai';
import { node } from './helpers/flow-builder.js';
import { chainFlow, completedOf, memoryGateway, memoryNode } from './helpers/memory.js';

/**
 * Span memory through HTTP (reference runtime-nodes §8.1–8.6 and the §11 parity lines for
 * memory_note, memory_query, memory_tag, memory_rehydrate, memory_compact): flows built here,
 * uploaded, run, and read back through `GET /runs/{id}`, its ledger and the memory routes.
 */
const note = (id: string, content: unknown, extra: Record<string, unknown> = {}, data: Record<string, unknown> = {}) =>
  memoryNode(id, 'memory_note', { content, ...extra }, ['note_id', 'raw'], [], data);
const query = (id: string, values: Record<string, unknown>) => memoryNode(id, 'memory_query', values, ['results', 'rendered', 'span_ids', 'raw']);
const contextOut = () => node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] });

interface Message {
  role: string;
  content: string;
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

describe('memory plugin: span memory nodes through HTTP (runtime-nodes §8.1–8.6)', function () {
  this.timeout(240_000);
  const gw = memoryGateway();
  before(() => gw.boot());
  after(() => gw.stop());

  describe('memory_note', () => {
    it('stores a note: ledger pair with the origin payload, a 32-hex note_id, the record in the run owner and the result text', async () => {
      const flow = chainFlow([note('n', 'I like green tea', { tags: { topic: 'drinks', kind: 'ignored', n: 5 }, location: 'kitchen' })], ['note_id', 'raw'], ['n.note_id -> end.note_id', 'n.raw -> end.raw']);
      const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      const noteId = String(run.output!.note_id);
      expect(noteId).to.match(/^[0-9a-f]{32}$/);

      const records = ledger.filter((r) => r.effect?.type === 'memory_note');
      expect(records.map((r) => r.status)).to.deep.equal(['started', 'completed']);
      expect(records[0]!.effect!.payload).to.deep.equal({ note: 'I like green tea', tags: { topic: 'drinks', kind: 'ignored', n: 5 }, location: 'kitchen' });
      const result = records[1]!.result as { mode: string; results: Array<Record<string, unknown>> };
      expect(result.mode).to.equal('executed');
      expect(result.results[0]).to.include({ call_id: 'memory', name: 'remember_note', success: true, error: null, output: `Stored memory_note span_id=${noteId} tags={"topic": "drinks"}` });
      expect((result.results[0]!.meta as Record<string, unknown>)).to.include({ span_id: noteId, note_preview: 'I like green tea' });

      const spans = (await gw.get(gw.bob, `/api/gateway/memory/spans?owner_id=${runId}`)).json<{ items: Array<Record<string, unknown>> }>().items;
      expect(spans).to.have.length(1);
      expect(spans[0]).to.include({ kind: 'memory_note', artifact_id: noteId, message_count: 0, note_preview: 'I like green tea', location: 'kitchen', created_by: 'gateway' });
      expect(spans[0]!.from_timestamp).to.equal(spans[0]!.created_at);
      expect(spans[0]!.tags).to.deep.equal({ topic: 'drinks' });
      expect(String(spans[0]!.created_at)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      const one = (await gw.get(gw.bob, `/api/gateway/memory/spans/${noteId}`)).json<{ content: Record<string, unknown>; tags: Record<string, string> }>();
      expect(one.content).to.include({ note: 'I like green tea', location: 'kitchen', actor_id: 'gateway' });
      expect(one.content.sources).to.deep.equal({ run_id: runId, span_ids: [], message_ids: [] });
      expect(one.tags).to.deep.equal({ kind: 'memory_note', topic: 'drinks' });
    });

    it('session scope stores in session_memory_<sid>; a session id with other characters in session_memory_sha_<32 hex>', async () => {
      const flow = chainFlow([note('n', 'session fact', { scope: 'session' })], ['note_id'], ['n.note_id -> end.note_id']);
      const plain = await gw.runFlow(gw.bob, flow, { session_id: 'chat-1' });
      expect(plain.run.status, plain.run.error ?? '').to.equal('completed');
      const owners = (await gw.get(gw.bob, '/api/gateway/memory/spans?owner_id=session_memory_chat-1')).json<{ items: Array<{ artifact_id: string }> }>().items;
      expect(owners.map((s) => s.artifact_id)).to.deep.equal([plain.run.output!.note_id]);

      const odd = await gw.runFlow(gw.bob, flow, { session_id: 'chat.2' });
      const listed = (await gw.get(gw.bob, '/api/gateway/memory')).json<{ owners: Array<{ owner_id: string }> }>().owners.map((o) => o.owner_id);
      expect(listed.some((o) => /^session_memory_sha_[0-9a-f]{32}$/.test(o)), JSON.stringify(listed)).to.equal(true);
      expect(odd.run.status).to.equal('completed');
    });

    it('sources (span and message ids) are kept on the record and rendered by recall; session scope of a run started without one uses the session the gateway gave it', async () => {
      const flow = chainFlow([
        note('n', 'derived fact', { sources: { span_ids: ['a'.repeat(32)], message_ids: ['m1', 'm2'] }, scope: 'session' }),
        query('q', { query: 'derived', scope: 'session' }),
      ], ['rendered', 'note_id'], ['q.rendered -> end.rendered', 'n.note_id -> end.note_id']);
      const { runId, run } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      const rendered = String(run.output!.rendered);
      expect(rendered).to.include(`\n    sources.span_ids: ${'a'.repeat(32)}`);
      expect(rendered).to.include('\n    sources.message_ids: m1, m2');
      const span = (await gw.get(gw.bob, `/api/gateway/memory/spans/${String(run.output!.note_id)}`)).json<{ owner_id: string; record: Record<string, unknown> }>();
      const session = (run as unknown as { session_id: string }).session_id;
      expect(span.owner_id).to.equal(`session_memory_${session}`);
      expect(span.record.sources).to.deep.equal({ run_id: runId, span_ids: ['a'.repeat(32)], message_ids: ['m1', 'm2'] });
    });

    it('the same note performed again at the same node (a loop repeating its payload) is stored once, as the origin reuses it', async () => {
      const flow = {
        nodes: [
          node({ id: 'start', type: 'on_flow_start', outputs: [] }),
          node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 3, step: 1 } } }),
          note('n', 'loop note'),
          node({ id: 'end', type: 'on_flow_end', inputs: ['note_id'] }),
        ],
        links: ['start -> loop', 'loop:loop -> n', 'loop:done -> end', 'n.note_id -> end.note_id'],
      };
      const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      expect(completedOf(ledger, 'memory_note')).to.have.length(3);
      const spans = (await gw.get(gw.bob, `/api/gateway/memory/spans?owner_id=${runId}`)).json<{ items: Array<{ span_id: string }> }>().items;
      expect(spans.map((x) => x.span_id)).to.deep.equal([run.output!.note_id]);
      const times = completedOf(ledger, 'memory_note').map((r) => ((r.result as { results: Array<{ meta: { created_at: string } }> }).results[0]!.meta.created_at));
      expect(new Set(times).size).to.equal(1);
    });

    it('an empty note fails the run with the origin text; so does an unknown scope', async () => {
      const empty = await gw.runFlow(gw.bob, chainFlow([note('n', '   ')], [], []));
      expect(empty.run.status).to.equal('failed');
      expect(empty.run.error).to.equal('MEMORY_NOTE requires payload.note (non-empty string)');
      const failed = empty.ledger.find((r) => r.effect?.type === 'memory_note' && r.status === 'failed');
      expect(failed?.error).to.equal('MEMORY_NOTE requires payload.note (non-empty string)');

      const scoped = await gw.runFlow(gw.bob, chainFlow([note('n', 'x', { scope: 'planet' })], [], []));
      expect(scoped.run.status).to.equal('failed');
      expect(scoped.run.error).to.equal('Unknown memory scope: planet');
    });

    it('keep_in_context (pin or effectConfig checkbox) appends the [MEMORY NOTE] system message to the context', async () => {
      const flow = chainFlow([note('n', 'Remember the blue door', {}, { effectConfig: { keep_in_context: true } }), note('m', 'not kept', { keep_in_context: 'false' }, { effectConfig: { keep_in_context: true } })], ['messages', 'note_id'], ['ctx.messages -> end.messages', 'n.note_id -> end.note_id']);
      flow.nodes.push(contextOut());
      const { run, ledger } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      const id = String(run.output!.note_id);
      const messages = run.output!.messages as Message[];
      expect(messages).to.have.length(1);
      expect(messages[0]).to.include({ role: 'system', content: '[MEMORY NOTE]\nRemember the blue door' });
      expect(messages[0]!.metadata).to.deep.equal({ kind: 'memory_note', rehydrated: true, source_artifact_id: id, message_id: `memory_note:${id}` });
      expect(completedOf(ledger, 'memory_note')[0]!.effect!.payload).to.include({ keep_in_context: true });
      expect(ledger.filter((r) => r.effect?.type === 'memory_note' && r.status === 'started')[1]!.effect!.payload).to.not.have.property('keep_in_context');
    });
  });

  describe('memory_query', () => {
    it('finds a tea note by query: payload limit_spans 10 and return both, results and rendered as the origin', async () => {
      const flow = chainFlow([note('n', 'Alice drinks tea every morning', { tags: { topic: 'drinks' } }), query('q', { query: 'TEA' })], ['results', 'rendered', 'note_id'], ['q.results -> end.results', 'q.rendered -> end.rendered', 'n.note_id -> end.note_id']);
      const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      const id = String(run.output!.note_id);
      expect(ledger.find((r) => r.effect?.type === 'memory_query')!.effect!.payload).to.deep.equal({ query: 'TEA', limit_spans: 10, return: 'both' });
      const results = run.output!.results as Array<Record<string, unknown>>;
      expect(results[0]).to.include({ span_id: id, kind: 'memory_note', note_preview: 'Alice drinks tea every morning', created_by: 'gateway' });
      const rendered = String(run.output!.rendered);
      expect(rendered.startsWith('Recalled memory spans (provenance-preserving):\n\n[1] span_id=')).to.equal(true);
      expect(rendered).to.include(`[1] span_id=${id} kind=memory_note msgs= created_at=`);
      expect(rendered).to.include('\n    tags: topic=drinks');
      expect(rendered).to.include('\n    note: Alice drinks tea every morning');
      expect(rendered).to.include(`\n    sources.run_id: ${runId}`);
      const raw = completedOf(ledger, 'memory_query')[0]!.result as { results: Array<{ meta: { retrieval: { mode: string; reason: string } } }> };
      expect(raw.results[0]!.meta.retrieval.mode).to.equal('keyword');
      expect(raw.results[0]!.meta.retrieval.reason).to.match(/no embedding model is configured/);
    });

    it('no hit answers "No matching memory spans."; tags filter; urgent clamps with the warnings block; bogus fails', async () => {
      const flow = chainFlow([
        note('n', 'coffee is fine', { tags: { topic: 'drinks' } }),
        query('miss', { query: 'zebra' }),
        query('tagged', { tags: { topic: ['food', 'DRINKS'] } }),
        query('urgent', { query: 'coffee', recall_level: 'urgent' }),
      ], ['miss', 'tagged', 'urgent'], ['miss.rendered -> end.miss', 'tagged.span_ids -> end.tagged', 'urgent.rendered -> end.urgent']);
      const { run } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      expect(run.output!.miss).to.equal('No matching memory spans.');
      expect(run.output!.tagged).to.have.length(1);
      expect(String(run.output!.urgent).startsWith('[recall warnings]\n- recall_level=urgent: clamped limit_spans from 10 to 3\n\nRecalled memory spans (provenance-preserving):')).to.equal(true);

      const bogus = await gw.runFlow(gw.bob, chainFlow([query('q', { query: 'x', recall_level: 'bogus' })], [], []));
      expect(bogus.run.status).to.equal('failed');
      expect(bogus.run.error).to.equal('Unknown recall_level: bogus');
    });

    it("scope all reads the run, the session and global memory; scope run does not see another run's notes", async () => {
      await gw.runFlow(gw.bob, chainFlow([note('g', 'global pineapple fact', { scope: 'global' })], [], []), { session_id: 'q-s' });
      const flow = chainFlow([query('all', { query: 'pineapple', scope: 'all' }), query('run', { query: 'pineapple' })], ['all', 'run'], ['all.span_ids -> end.all', 'run.span_ids -> end.run']);
      const { run } = await gw.runFlow(gw.bob, flow, { session_id: 'q-s' });
      expect(run.output!.all).to.have.length(1);
      expect(run.output!.run).to.have.length(0);
    });
  });

  describe('memory_tag', () => {
    it('without span_id fails with the origin text; tags a note with the origin result text; unknown id fails', async () => {
      const missing = await gw.runFlow(gw.bob, chainFlow([memoryNode('t', 'memory_tag', { tags: { a: 'b' } }, ['rendered'])], [], []));
      expect(missing.run.status).to.equal('failed');
      expect(missing.run.error).to.equal('MEMORY_TAG requires payload.span_id');

      const flow = chainFlow([note('n', 'tag me'), memoryNode('t', 'memory_tag', { tags: { topic: 'drinks', kind: 'x' } }, ['rendered', 'success'], ['span_id'])], ['rendered', 'success', 'note_id'], ['n.note_id -> t.span_id', 't.rendered -> end.rendered', 't.success -> end.success', 'n.note_id -> end.note_id']);
      const { runId, run } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      expect(run.output!.rendered).to.equal(`Tagged span_id=${String(run.output!.note_id)} scope=run runs=[${runId}] tags={"topic": "drinks"}`);
      expect(run.output!.success).to.equal(true);
      const span = (await gw.get(gw.bob, `/api/gateway/memory/spans/${String(run.output!.note_id)}`)).json<{ record: Record<string, unknown> }>().record;
      expect(span).to.include({ tagged_by: 'gateway' });
      expect(span.tags).to.deep.equal({ topic: 'drinks' });

      const unknown = await gw.runFlow(gw.bob, chainFlow([memoryNode('t', 'memory_tag', { span_id: 'f'.repeat(32), tags: { a: 'b' } }, ['rendered'])], [], []));
      expect(unknown.run.error).to.equal(`Unknown span_id: ${'f'.repeat(32)}`);
    });
  });

  describe('memory_rehydrate', () => {
    it('a note id inserts its [MEMORY NOTE] message once: inserted 1, then inserted 0 skipped 1; [] inserts nothing', async () => {
      const rehydrate = (id: string) => memoryNode(id, 'memory_rehydrate', { placement: 'end' }, ['inserted', 'skipped', 'artifacts'], ['span_ids']);
      const empty = memoryNode('e', 'memory_rehydrate', { span_ids: [] }, ['inserted', 'skipped', 'artifacts']);
      const flow = chainFlow([note('n', 'the code is 1234'), rehydrate('r1'), rehydrate('r2'), empty], ['first', 'second', 'skipped', 'empty', 'messages', 'artifacts', 'note_id'], [
        'n.note_id -> r1.span_ids', 'n.note_id -> r2.span_ids', 'r1.inserted -> end.first', 'r2.inserted -> end.second', 'r2.skipped -> end.skipped',
        'e.raw -> end.empty', 'ctx.messages -> end.messages', 'r1.artifacts -> end.artifacts', 'n.note_id -> end.note_id',
      ]);
      flow.nodes.push(contextOut());
      const { run, ledger } = await gw.runFlow(gw.bob, flow);
      expect(run.status, run.error ?? '').to.equal('completed');
      const id = String(run.output!.note_id);
      expect(run.output).to.include({ first: 1, second: 0, skipped: 1 });
      expect(run.output!.empty).to.include({ inserted: 0, skipped: 0 });
      expect((run.output!.empty as { artifacts: unknown[] }).artifacts).to.deep.equal([]);
      const messages = run.output!.messages as Message[];
      expect(messages).to.have.length(1);
      expect(messages[0]!.metadata!.message_id).to.equal(`memory_note:${id}`);
      expect(run.output!.artifacts).to.deep.equal([{ span_id: id, inserted: 1, skipped: 0, error: null, kind: 'memory_note', preview: '[MEMORY NOTE]\nthe code is 1234' }]);
      expect(ledger.filter((r) => r.effect?.type === 'memory_rehydrate' && r.status === 'started')[0]!.effect!.payload).to.deep.equal({ span_ids: [id], placement: 'end' });
      expect(ledger.filter((r) => r.effect?.type === 'memory_rehydrate' && r.status === 'started')[2]!.effect!.payload).to.deep.equal({ span_ids: [], placement: 'after_summary' });
    });
  });

  describe('memory_compact (summary by the tiny chat model through the inference plugin)', () => {
    const history = (n: number): Message[] => [
      { role: 'system', content: 'You are helpful.' },
      ...Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i + 1}` })),
    ];

    it('6 messages with preserve_recent 2: system + [CONVERSATION HISTORY SUMMARY span_id=…] + the last 2; the span archives the older 4', async () => {
      const flow = chainFlow([memoryNode('c', 'memory_compact', { preserve_recent: 2, focus: 'turns' }, ['span_id', 'raw'])], ['messages', 'span_id', 'raw'], ['ctx.messages -> end.messages', 'c.span_id -> end.span_id', 'c.raw -> end.raw']);
      flow.nodes.push(contextOut());
      const { runId, run, ledger } = await gw.runFlow(gw.bob, flow, { input_data: { context: { task: '', messages: history(6) } } });
      expect(run.status, run.error ?? '').to.equal('completed');
      const spanId = String(run.output!.span_id);
      expect(spanId).to.match(/^[0-9a-f]{32}$/);
      const messages = run.output!.messages as Message[];
      expect(messages.map((m) => m.role)).to.deep.equal(['system', 'system', 'user', 'assistant']);
      expect(messages[0]!.content).to.equal('You are helpful.');
      expect(messages[1]!.content.startsWith(`[CONVERSATION HISTORY SUMMARY span_id=${spanId}]: `)).to.equal(true);
      expect(messages[1]!.metadata).to.include({ kind: 'memory_summary', compression_mode: 'standard', preserve_recent: 2, source_artifact_id: spanId, source_message_count: 4, focus: 'turns' });
      expect(messages.slice(2).map((m) => m.content)).to.deep.equal(['turn 5', 'turn 6']);
      const result = (run.output!.raw as { results: Array<{ output: string }> }).results[0]!;
      expect(result.output).to.equal(`Compacted 4 messages into span_id=${spanId}.`);
      expect(ledger.find((r) => r.effect?.type === 'memory_compact')!.effect!.payload).to.deep.equal({ preserve_recent: 2, focus: 'turns' });

      const span = (await gw.get(gw.bob, `/api/gateway/memory/spans/${spanId}`)).json<{ owner_id: string; record: Record<string, unknown>; content: { messages: Message[] }; tags: Record<string, string> }>();
      expect(span.owner_id).to.equal(runId);
      expect(span.record).to.include({ kind: 'conversation_span', message_count: 4, compression_mode: 'standard', focus: 'turns' });
      expect(span.content.messages.map((m) => m.content)).to.deep.equal(['turn 1', 'turn 2', 'turn 3', 'turn 4']);
      expect(span.content.messages.every((m) => /^msg_[0-9a-f]{32}$/.test(String(m.metadata?.message_id)))).to.equal(true);
      expect(span.tags).to.deep.equal({ kind: 'conversation_span', compression_mode: 'standard', preserve_recent: '2', focus: 'turns' });
    });

    it('preserve_recent 0 is read as 6 (nothing to compact with 6 non-system messages); no messages: "No messages to compact."', async () => {
      const flow = chainFlow([memoryNode('c', 'memory_compact', { preserve_recent: 0 }, ['span_id', 'raw'])], ['raw', 'messages'], ['c.raw -> end.raw', 'ctx.messages -> end.messages']);
      flow.nodes.push(contextOut());
      const six = await gw.runFlow(gw.bob, flow, { input_data: { context: { messages: history(6) } } });
      expect(six.run.status, six.run.error ?? '').to.equal('completed');
      expect((six.run.output!.raw as { results: Array<{ output: string }> }).results[0]!.output).to.equal('Nothing to compact (non-system messages <= preserve_recent=6).');
      expect(six.run.output!.messages).to.have.length(7);
      const none = await gw.runFlow(gw.bob, flow);
      expect((none.run.output!.raw as { results: Array<{ output: string }> }).results[0]!.output).to.equal('No messages to compact.');
    });

    it('a compacted span rehydrates after its summary message (after_summary), marked rehydrated', async () => {
      const flow = chainFlow([
        memoryNode('c', 'memory_compact', { preserve_recent: 2 }, ['span_id']),
        memoryNode('r', 'memory_rehydrate', {}, ['inserted'], ['span_ids']),
      ], ['messages', 'inserted'], ['c.span_id -> r.span_ids', 'ctx.messages -> end.messages', 'r.inserted -> end.inserted']);
      flow.nodes.push(contextOut());
      const { run } = await gw.runFlow(gw.bob, flow, { input_data: { context: { messages: history(6) } } });
      expect(run.status, run.error ?? '').to.equal('completed');
      expect(run.output!.inserted).to.equal(4);
      const messages = run.output!.messages as Message[];
      expect(messages.map((m) => m.content).slice(2, 6)).to.deep.equal(['turn 1', 'turn 2', 'turn 3', 'turn 4']);
      expect(messages[2]!.metadata).to.include({ rehydrated: true });
      expect(messages.slice(6).map((m) => m.content)).to.deep.equal(['turn 5', 'turn 6']);
    });
  });
});
