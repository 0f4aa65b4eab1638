import { expect } from 'chai';
import { chainFlow, completedOf, memoryGateway, memoryNode } from './helpers/memory.js';
import { embeddingsDir, requireGloveModel } from './helpers/shared-models.js';
import type { Triple } from '@keel/plugin-memory';

/**
 * The knowledge graph and MemAct active memory through HTTP (reference runtime-nodes §8.7, §8.8 and
 * the §11 parity lines for memory_kg_assert / memory_kg_query, memory_kg_resolve, memact_compose).
 */
const assert = (id: string, values: Record<string, unknown>) => memoryNode(id, 'memory_kg_assert', values, ['assertion_ids', 'count', 'ok', 'raw']);
const kgQuery = (id: string, values: Record<string, unknown>) => memoryNode(id, 'memory_kg_query', values, ['items', 'count', 'ok', 'packets', 'active_memory_text', 'packed_count', 'dropped', 'estimated_tokens', 'raw']);
const resolve = (id: string, values: Record<string, unknown>) => memoryNode(id, 'memory_kg_resolve', values, ['candidates', 'count', 'ok', 'raw']);
const compose = (id: string, values: Record<string, unknown>, inputs: string[] = []) => memoryNode(id, 'memact_compose', values, ['ok', 'delta', 'trace', 'active_memory', 'memact_blocks', 'memact_system_prompt'], inputs);


describe('memory plugin: knowledge graph and memact_compose through HTTP (runtime-nodes §8.7–8.8)', function () {
  this.timeout(240_000);
  const gw = memoryGateway();
  before(() => gw.boot());
  after(() => gw.stop());

  it('assert normalises (ex:John Smith → ex:john-smith, objects lowercased), skips duplicates, and query answers newest first', async () => {
    const flow = chainFlow([
      assert('a1', { assertions: [{ subject: 'ex:John Smith', predicate: 'schema:knowsAbout', object: 'Quantum Physics' }], span_id: 'span-1' }),
      assert('a2', { triples: [{ subject: 'ex:John Smith', predicate: 'schema:knowsAbout', object: 'quantum physics' }, { subject: 'ex:John Smith', predicate: 'schema:hasParent', object: 'ex:ACME Corp.' }] }),
      kgQuery('q', { subject: 'EX:John Smith' }),
    ], ['first', 'second', 'items', 'count'], ['a1.raw -> end.first', 'a2.raw -> end.second', 'q.items -> end.items', 'q.count -> end.count']);
    const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.first).to.include({ ok: true, count: 1, count_attempted: 1, skipped_duplicates: 0 });
    expect(run.output!.second).to.include({ ok: true, count: 1, count_attempted: 2, skipped_duplicates: 1 });
    const items = run.output!.items as Triple[];
    expect(run.output!.count).to.equal(2);
    expect(items.map((t) => [t.subject, t.predicate, t.object])).to.deep.equal([
      ['ex:john-smith', 'dcterms:ispartof', 'ex:acme-corp'],
      ['ex:john-smith', 'schema:knowsabout', 'quantum physics'],
    ]);
    expect(items[1]).to.include({ scope: 'run', owner_id: runId });
    expect(items[1]!.provenance).to.include({ span_id: 'span-1', writer_run_id: runId });
    expect(items[1]!.observed_at).to.match(/\.\d{6}\+00:00$/);
    expect(completedOf(ledger, 'memory_kg_assert')).to.have.length(2);
  });

  it('a duplicate alone answers count 0, skipped_duplicates 1 (kept with dedupe: false); an empty list answers skipped: true', async () => {
    const triple = { subject: 'ex:a', predicate: 'rdf:type', object: 'ex:thing' };
    const flow = chainFlow([assert('a1', { assertions: [triple] }), assert('a2', { assertions: [triple] }), assert('a3', { assertions: [] }), assert('a4', { assertions: [triple], dedupe: false })], ['dup', 'empty', 'forced'], ['a2.raw -> end.dup', 'a3.raw -> end.empty', 'a4.count -> end.forced']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.output!.forced).to.equal(1);
    expect(run.output!.dup).to.include({ ok: true, count: 0, skipped_duplicates: 1 });
    expect(run.output!.empty).to.deep.equal({ ok: true, count: 0, assertion_ids: [], skipped: true });
  });

  it('an unknown predicate fails the run with the origin text; ex: predicates only with allow_custom_predicates; empty parts are invalid', async () => {
    const bad = await gw.runFlow(gw.bob, chainFlow([assert('a', { assertions: [{ subject: 'ex:a', predicate: 'foo:likes', object: 'x' }, { subject: 'ex:a', predicate: 'ex:loves', object: 'y' }] })], [], []));
    expect(bad.run.status).to.equal('failed');
    expect(bad.run.error).to.equal('MEMORY_KG_ASSERT rejected unknown predicates. Got: foo:likes, ex:loves');
    const custom = await gw.runFlow(gw.bob, chainFlow([assert('a', { assertions: [{ subject: 'ex:a', predicate: 'ex:loves', object: 'y' }], allow_custom_predicates: true })], ['count'], ['a.count -> end.count']));
    expect(custom.run.output!.count).to.equal(1);
    const invalid = await gw.runFlow(gw.bob, chainFlow([assert('a', { assertions: [{ subject: 'ex:a', predicate: 'rdf:type', object: '' }] })], [], []));
    expect(invalid.run.status).to.equal('failed');
    expect(String(invalid.run.error)).to.match(/^MEMORY_KG_ASSERT contained invalid assertions: /);
  });

  it('a token budget adds packets and the ## KG ACTIVE MEMORY text; an unknown scope answers ok: false and the run goes on', async () => {
    const flow = chainFlow([
      assert('a', { assertions: [{ subject: 'ex:paris', predicate: 'schema:location', object: 'ex:france' }], span_id: 's9' }),
      kgQuery('q', { max_input_tokens: 200 }),
      kgQuery('bad', { scope: 'galaxy' }),
    ], ['text', 'packets', 'packed', 'bad'], ['q.active_memory_text -> end.text', 'q.packets -> end.packets', 'q.packed_count -> end.packed', 'bad.raw -> end.bad']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    const lines = String(run.output!.text).split('\n');
    expect(lines.slice(0, 3)).to.deep.equal(['## KG ACTIVE MEMORY', '(scope=run; order=observed_at-desc; budget=200 max_input_tokens)', '']);
    expect(lines[3]).to.match(/^- \[\d{4}-.*\+00:00\] ex:paris —schema:location→ ex:france \(span:s9\)$/);
    expect(run.output!.packed).to.equal(1);
    expect((run.output!.packets as Array<Record<string, unknown>>)[0]).to.include({ version: 0, statement: 'ex:paris —schema:location→ ex:france', span_id: 's9' });
    expect(run.output!.bad).to.deep.include({ ok: false, count: 0, items: [] });
  });

  it('query_text without an embedding model answers ok: false naming the setting (the run completes)', async () => {
    const { run } = await gw.runFlow(gw.bob, chainFlow([kgQuery('q', { query_text: 'cities' })], ['raw'], ['q.raw -> end.raw']));
    expect(run.status).to.equal('completed');
    expect(run.output!.raw).to.include({ ok: false, count: 0 });
    expect(String((run.output!.raw as { error: string }).error)).to.match(/embeddingModel/);
  });

  it('resolve: an empty label answers ok: false "label is required" and the run continues; an exact schema:name hit scores 1.0 with its types', async () => {
    const flow = chainFlow([
      assert('a', { assertions: [
        { subject: 'ex:Ada Lovelace', predicate: 'schema:name', object: 'Ada  Lovelace' },
        { subject: 'ex:Ada Lovelace', predicate: 'rdf:type', object: 'schema:Person' },
      ] }),
      resolve('empty', { label: '  ' }),
      resolve('hit', { label: 'ada   LOVELACE', expected_type: 'schema:person' }),
      resolve('typed', { label: 'Ada Lovelace', expected_type: 'schema:place' }),
    ], ['empty', 'hit', 'typed'], ['empty.raw -> end.empty', 'hit.candidates -> end.hit', 'typed.count -> end.typed']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.empty).to.deep.equal({ ok: false, count: 0, candidates: [], error: 'label is required' });
    const [candidate] = run.output!.hit as Array<Record<string, unknown>>;
    expect(candidate).to.include({ id: 'ex:ada-lovelace', score: 1.0, scope: 'run' });
    expect(candidate!.types).to.deep.equal(['schema:person']);
    expect(run.output!.typed).to.equal(0);
  });

  it('memact_compose: a non-object input answers the fixed error object; packets become KG: lines, older KG: lines removed, prompt starts ## MEMORY BLUEPRINTS; no ledger record', async () => {
    const flow = chainFlow([
      compose('bad', { kg_result: 'nope' }),
      assert('a', { assertions: [{ subject: 'ex:tea', predicate: 'rdf:type', object: 'ex:drink' }], span_id: 'sp1' }),
      kgQuery('q', { max_input_tokens: 500 }),
      compose('c1', {}, ['kg_result']),
      assert('a2', { assertions: [{ subject: 'ex:coffee', predicate: 'rdf:type', object: 'ex:drink' }] }),
      kgQuery('q2', { subject: 'ex:coffee' }),
      compose('c2', {}, ['kg_result']),
    ], ['bad', 'first', 'second', 'prompt', 'memory'], [
      'bad.raw -> end.bad', 'q.raw -> c1.kg_result', 'q2.raw -> c2.kg_result', 'c1.delta -> end.first', 'c2.delta -> end.second',
      'c2.memact_system_prompt -> end.prompt', 'c2.active_memory -> end.memory',
    ]);
    // The bad node's whole output: read it through its own pins.
    flow.links = flow.links.map((l) => (l === 'bad.raw -> end.bad' ? 'bad.ok -> end.bad' : l));
    const { runId, run, ledger } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.bad).to.equal(false);
    const wf = (await gw.get(gw.bob, `/api/gateway/runs/${runId}`)).json<{ workflow_id: string }>().workflow_id;
    expect(run.output!.first).to.deep.equal({ current_context: { added: [`KG: ex:tea —rdf:type→ ex:drink (span:sp1; wf:${wf})`], removed: [] } });
    expect(run.output!.second).to.deep.equal({ current_context: { added: [`KG: ex:coffee —rdf:type→ ex:drink (wf:${wf})`], removed: [`KG: ex:tea —rdf:type→ ex:drink (span:sp1; wf:${wf})`] } });
    expect(String(run.output!.prompt).startsWith('## MEMORY BLUEPRINTS\n')).to.equal(true);
    expect(String(run.output!.prompt)).to.match(/\n\n## CURRENT CONTEXT\n- \[\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d\] KG: ex:coffee —rdf:type→ ex:drink/);
    expect(String(run.output!.prompt)).to.include('\n\n## MY PERSONA\n(empty)');
    const memory = run.output!.memory as { version: number; current_context: Array<{ id: string }>; limits: Record<string, number> };
    expect(memory.version).to.equal(1);
    expect(memory.current_context[0]!.id).to.match(/^ctx_[0-9a-f]+$/);
    expect(memory.limits).to.deep.equal({ relationships: 40, current_tasks: 8, current_context: 60, critical_insights: 60, references: 80, history: 200 });
    expect(ledger.filter((r) => r.node_id.startsWith('c') || r.node_id === 'bad')).to.deep.equal([]);
  });

  it('the fixed error object of memact_compose is the origin text', async () => {
    const { run } = await gw.runFlow(gw.bob, chainFlow([compose('bad', {})], ['ok', 'error', 'prompt', 'blocks'], ['bad.ok -> end.ok', 'bad.error -> end.error', 'bad.memact_system_prompt -> end.prompt', 'bad.memact_blocks -> end.blocks']));
    expect(run.output).to.deep.include({ ok: false, error: 'memact_compose requires a dict kg_result (connect memory_kg_query.raw or output)', prompt: '', blocks: [] });
  });
});

describe('memory plugin not loaded', function () {
  this.timeout(120_000);
  const gw = memoryGateway({ withoutMemory: true });
  before(() => gw.boot());
  after(() => gw.stop());

  it('a flow with memory_kg_query fails at start naming the memory plugin', async () => {
    const { run } = await gw.runFlow(gw.bob, chainFlow([kgQuery('q', { subject: 'x' })], [], []));
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("node 'q' has type 'memory_kg_query', which the 'memory' plugin provides; that plugin is not loaded (add it to the config's plugins).");
  });
});

describe('memory plugin with an embedding model (real glove-sif-50d through the inference plugin)', function () {
  this.timeout(240_000);
  const gw = memoryGateway({ memory: { embeddingModel: 'local/glove-sif-50d', semanticMinScore: 0.3 }, inference: { modelsDirs: [embeddingsDir] } });
  before(async function () {
    requireGloveModel(this);
    await gw.boot();
  });
  after(() => gw.stop());

  it('query_text ranks triples by cosine similarity (attributes._retrieval), order similarity-desc in the active memory text', async () => {
    const flow = chainFlow([
      assert('a', { assertions: [
        { subject: 'ex:bank', predicate: 'schema:about', object: 'interest rates and money' },
        { subject: 'ex:band', predicate: 'schema:about', object: 'guitar music and songs' },
      ] }),
      kgQuery('q', { query_text: 'money', min_score: -1, max_input_tokens: 300 }),
    ], ['items', 'text'], ['q.items -> end.items', 'q.active_memory_text -> end.text']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    const items = run.output!.items as Triple[];
    expect(items).to.have.length(2);
    expect(items[0]!.subject).to.equal('ex:bank');
    const retrieval = items[0]!.attributes._retrieval as { score: number; metric: string };
    expect(retrieval.metric).to.equal('cosine');
    expect(retrieval.score).to.be.greaterThan((items[1]!.attributes._retrieval as { score: number }).score);
    expect(String(run.output!.text)).to.include('order=similarity-desc');
    expect(String(run.output!.text)).to.match(/score:\d\.\d{3}\)/);
  });

  it('memory_kg_resolve adds semantic candidates (score below 1.0) when asked, exact hits keep 1.0', async () => {
    const flow = chainFlow([
      assert('a', { assertions: [
        { subject: 'ex:Money Bank', predicate: 'schema:name', object: 'money bank' },
        { subject: 'ex:Guitar Band', predicate: 'schema:name', object: 'guitar band' },
      ] }),
      resolve('r', { label: 'finance money', include_semantic: true, min_score: -1 }),
      resolve('x', { label: 'money bank' }),
    ], ['semantic', 'exact'], ['r.candidates -> end.semantic', 'x.candidates -> end.exact']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    const semantic = run.output!.semantic as Array<{ id: string; score: number }>;
    expect(semantic[0]!.id).to.equal('ex:money-bank');
    expect(semantic[0]!.score).to.be.lessThan(1);
    expect((run.output!.exact as Array<{ id: string; score: number }>)[0]).to.include({ id: 'ex:money-bank', score: 1 });
  });

  it('memory_query says it matched by meaning too (retrieval mode keyword+semantic) and finds a note without the word', async () => {
    const flow = chainFlow([
      memoryNode('n', 'memory_note', { content: 'The bank raised interest rates again.' }, ['note_id']),
      memoryNode('q', 'memory_query', { query: 'money' }, ['results', 'raw']),
    ], ['results', 'raw'], ['q.results -> end.results', 'q.raw -> end.raw']);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    const meta = (run.output!.raw as { results: Array<{ meta: { retrieval: { mode: string; model: string } } }> }).results[0]!.meta;
    expect(meta.retrieval.mode).to.equal('keyword+semantic');
    expect(run.output!.results).to.have.length(1);
  });
});
