import { expect } from 'chai';
import { node } from './helpers/flow-builder.js';
import { chainFlow, memoryGateway, memoryNode } from './helpers/memory.js';

/**
 * One account never reaches another's memory (ARCHITECTURE §4 "every account has its own plane"):
 * eve tries bob's global memory, span ids, triple ids and owner ids through her own flows and
 * through the memory routes; the routes' limits and refusals answer `{detail: "…"}`.
 */
describe("memory plugin: one account never reaches another's memory (attacks), and the memory routes", function () {
  this.timeout(240_000);
  const gw = memoryGateway({ memory: { listMaxLimit: 50 } });
  let bobNote = '';
  let bobGlobal = '';
  let bobRun = '';
  let bobTriple = '';
  before(async () => {
    await gw.boot();
    const flow = chainFlow([
      memoryNode('n', 'memory_note', { content: 'bob secret: the vault code is 9931' }, ['note_id']),
      memoryNode('g', 'memory_note', { content: 'bob global secret 9931', scope: 'global' }, ['note_id']),
      memoryNode('a', 'memory_kg_assert', { assertions: [{ subject: 'ex:vault', predicate: 'schema:name', object: 'secret vault 9931' }], scope: 'global' }, ['assertion_ids']),
    ], ['note', 'global', 'triples'], ['n.note_id -> end.note', 'g.note_id -> end.global', 'a.assertion_ids -> end.triples']);
    const { runId, run } = await gw.runFlow(gw.bob, flow, { session_id: 'shared-name' });
    expect(run.status, run.error ?? '').to.equal('completed');
    bobNote = String(run.output!.note);
    bobGlobal = String(run.output!.global);
    bobTriple = (run.output!.triples as string[])[0]!;
    bobRun = runId;
  });
  after(() => gw.stop());

  it("eve's global, session (same session id) and all-scope queries and KG queries never see bob's memory", async () => {
    const flow = chainFlow([
      memoryNode('q', 'memory_query', { query: '9931', scope: 'all' }, ['span_ids']),
      memoryNode('gq', 'memory_query', { query: '', scope: 'global' }, ['span_ids']),
      memoryNode('k', 'memory_kg_query', { scope: 'global' }, ['count']),
      memoryNode('ko', 'memory_kg_query', { owner_id: 'global_memory', subject: 'ex:vault' }, ['count']),
      memoryNode('kr', 'memory_kg_query', { owner_id: bobRun }, ['count']),
      memoryNode('r', 'memory_kg_resolve', { label: 'secret vault 9931', scope: 'all' }, ['count']),
    ], ['all', 'global', 'kg', 'kgOwner', 'kgRun', 'resolved'], ['q.span_ids -> end.all', 'gq.span_ids -> end.global', 'k.count -> end.kg', 'ko.count -> end.kgOwner', 'kr.count -> end.kgRun', 'r.count -> end.resolved']);
    const { run } = await gw.runFlow(gw.eve, flow, { session_id: 'shared-name' });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.deep.equal({ all: [], global: [], kg: 0, kgOwner: 0, kgRun: 0, resolved: 0, success: true });
  });

  it("eve cannot tag or rehydrate bob's spans by id from her flows", async () => {
    const tag = await gw.runFlow(gw.eve, chainFlow([memoryNode('t', 'memory_tag', { span_id: bobNote, tags: { owned: 'eve' }, scope: 'all' }, ['rendered'])], [], []));
    expect(tag.run.status).to.equal('failed');
    expect(tag.run.error).to.equal(`Unknown span_id: ${bobNote}`);
    const flow = chainFlow([memoryNode('r', 'memory_rehydrate', { span_ids: [bobNote, bobGlobal], placement: 'end' }, ['inserted', 'artifacts'])], ['inserted', 'artifacts', 'messages'], ['r.inserted -> end.inserted', 'r.artifacts -> end.artifacts', 'ctx.messages -> end.messages']);
    flow.nodes.push(node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }));
    const rehydrated = await gw.runFlow(gw.eve, flow);
    expect(rehydrated.run.status, rehydrated.run.error ?? '').to.equal('completed');
    expect(rehydrated.run.output).to.deep.include({ inserted: 0, artifacts: [] });
    expect(JSON.stringify(rehydrated.run.output)).to.not.include('9931');
  });

  it("the routes answer 404 to eve for bob's span, triple and owner ids (read and delete), and list only her own", async () => {
    for (const url of [`/api/gateway/memory/spans/${bobNote}`, `/api/gateway/memory/spans/${bobGlobal}`]) {
      const res = await gw.get(gw.eve, url);
      expect(res.statusCode, url).to.equal(404);
      expect(res.json<{ detail: string }>().detail).to.equal(`Memory span '${url.split('/').pop()}' not found.`);
      expect((await gw.del(gw.eve, url)).statusCode, url).to.equal(404);
    }
    expect((await gw.del(gw.eve, `/api/gateway/memory/kg/${bobTriple}`)).json<{ detail: string }>().detail).to.equal(`Knowledge-graph triple '${bobTriple}' not found.`);
    expect((await gw.del(gw.eve, `/api/gateway/memory/owners/${bobRun}`)).statusCode).to.equal(404);
    expect((await gw.del(gw.eve, '/api/gateway/memory/owners/global_memory')).statusCode).to.equal(404);
    const spans = (await gw.get(gw.eve, `/api/gateway/memory/spans?owner_id=${bobRun}`)).json<{ items: unknown[] }>().items;
    expect(spans).to.deep.equal([]);
    const all = (await gw.get(gw.eve, '/api/gateway/memory/spans')).body;
    expect(all).to.not.include('9931');
    expect((await gw.get(gw.eve, '/api/gateway/memory/kg')).body).to.not.include('9931');
    // Eve deleting "all her memory" leaves bob's untouched.
    expect((await gw.del(gw.eve, '/api/gateway/memory?confirm=all')).statusCode).to.equal(200);
    expect((await gw.get(gw.bob, `/api/gateway/memory/spans/${bobNote}`)).statusCode).to.equal(200);
    expect((await gw.get(gw.bob, '/api/gateway/memory/kg?owner_id=global_memory')).json<{ items: Array<{ id: string }> }>().items.map((t) => t.id)).to.deep.equal([bobTriple]);
  });

  it('hostile ids (far longer than any key, other accounts\' owners) fail or answer nothing instead of breaking the store', async () => {
    const long = 'x'.repeat(5000);
    const flow = chainFlow([
      memoryNode('r', 'memory_rehydrate', { span_ids: [long] }, ['inserted']),
      memoryNode('k', 'memory_kg_query', { owner_id: long }, ['count']),
      memoryNode('q', 'memory_query', { query: long }, ['span_ids']),
    ], ['inserted', 'count', 'ids'], ['r.inserted -> end.inserted', 'k.count -> end.count', 'q.span_ids -> end.ids']);
    const { run } = await gw.runFlow(gw.eve, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.deep.include({ inserted: 0, count: 0, ids: [] });
    const tag = await gw.runFlow(gw.eve, chainFlow([memoryNode('t', 'memory_tag', { span_id: long, tags: { a: 'b' } }, ['rendered'])], [], []));
    expect(tag.run.error).to.equal(`Unknown span_id: ${long}`);
    const owner = await gw.runFlow(gw.eve, chainFlow([memoryNode('a', 'memory_kg_assert', { assertions: [{ subject: 'ex:a', predicate: 'rdf:type', object: 'ex:b' }], owner_id: long }, ['count'])], [], []));
    expect(owner.run.error).to.equal('MEMORY_KG_ASSERT owner_id is longer than 256 characters.');
    const when = await gw.runFlow(gw.eve, chainFlow([memoryNode('a', 'memory_kg_assert', { assertions: [{ subject: 'ex:a', predicate: 'rdf:type', object: 'ex:b', observed_at: long }] }, ['count'])], [], []));
    expect(when.run.error).to.equal('MEMORY_KG_ASSERT contained invalid assertions: #0: observed_at must be an ISO timestamp');
  });

  it('without a token the routes answer 401; a limit above listMaxLimit and a delete-all without confirm answer 400 {detail}', async () => {
    expect((await gw.get('', '/api/gateway/memory/spans')).statusCode).to.equal(401);
    const big = await gw.get(gw.bob, '/api/gateway/memory/spans?limit=51');
    expect(big.statusCode).to.equal(400);
    expect(big.json<{ detail: string }>().detail).to.match(/listMaxLimit/);
    const unconfirmed = await gw.del(gw.bob, '/api/gateway/memory');
    expect(unconfirmed.statusCode).to.equal(400);
    expect(unconfirmed.json<{ detail: string }>().detail).to.equal('Deleting all of your memory needs ?confirm=all (nothing was deleted).');
  });

  it('bob inspects and deletes his own memory: one span, one triple, then a whole owner', async () => {
    const overview = (await gw.get(gw.bob, '/api/gateway/memory')).json<{ owners: Array<{ owner_id: string; spans: number; triples: number }> }>().owners;
    expect(overview).to.deep.include({ owner_id: 'global_memory', spans: 1, triples: 1 });
    expect(overview).to.deep.include({ owner_id: bobRun, spans: 1, triples: 0 });
    expect((await gw.del(gw.bob, `/api/gateway/memory/spans/${bobNote}`)).json()).to.deep.equal({ deleted: true, span_id: bobNote });
    expect((await gw.get(gw.bob, `/api/gateway/memory/spans/${bobNote}`)).statusCode).to.equal(404);
    expect((await gw.del(gw.bob, `/api/gateway/memory/kg/${bobTriple}`)).json()).to.deep.equal({ deleted: true, triple_id: bobTriple });
    expect((await gw.del(gw.bob, '/api/gateway/memory/owners/global_memory')).json()).to.deep.equal({ owner_id: 'global_memory', deleted_spans: 1, deleted_triples: 0 });
    expect((await gw.get(gw.bob, '/api/gateway/memory')).json()).to.deep.equal({ owners: [] });
    // A deleted note is gone for the nodes too.
    const { run } = await gw.runFlow(gw.bob, chainFlow([memoryNode('q', 'memory_query', { query: '9931', scope: 'all' }, ['span_ids'])], ['ids'], ['q.span_ids -> end.ids']));
    expect(run.output!.ids).to.deep.equal([]);
  });
});
