import { expect } from 'chai';
import { chainFlow, memoryGateway, memoryNode } from './helpers/memory.js';

/** Every limit of the memory plugin is a setting; past it the effect fails with a sentence naming the setting. */
describe('memory plugin: limits are settings (small values here), refused with a sentence naming them', function () {
  this.timeout(240_000);
  const gw = memoryGateway({ memory: { maxNoteChars: 20, maxSpansPerOwner: 2, maxTags: 1, maxTagChars: 8, kgMaxAssertions: 2, kgMaxTriplesPerOwner: 1 } });
  before(() => gw.boot());
  after(() => gw.stop());

  const noteFlow = (content: string, extra: Record<string, unknown> = {}) => chainFlow([memoryNode('n', 'memory_note', { content, ...extra }, ['note_id'])], [], []);

  it('maxNoteChars, maxTags and maxTagChars', async () => {
    expect((await gw.runFlow(gw.bob, noteFlow('x'.repeat(21)))).run.error).to.equal("MEMORY_NOTE note has 21 characters; at most 20 (the memory plugin's maxNoteChars).");
    expect((await gw.runFlow(gw.bob, noteFlow('ok', { tags: { a: '1', b: '2' } }))).run.error).to.equal("MEMORY_NOTE has 2 tags; at most 1 (the memory plugin's maxTags).");
    expect((await gw.runFlow(gw.bob, noteFlow('ok', { tags: { a: '123456789' } }))).run.error).to.equal("MEMORY_NOTE tag 'a' is longer than 8 characters (the memory plugin's maxTagChars).");
  });

  it('maxSpansPerOwner: the third note of one owner fails; another owner still has room', async () => {
    const flow = chainFlow([1, 2, 3].map((i) => memoryNode(`n${i}`, 'memory_note', { content: `note ${i}`, scope: 'global' }, ['note_id'])), [], []);
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("The memory of 'global_memory' already holds 2 spans (the memory plugin's maxSpansPerOwner); delete some through DELETE /api/gateway/memory/spans/{span_id} or raise the setting.");
    expect((await gw.runFlow(gw.bob, noteFlow('run owned'))).run.status).to.equal('completed');
    // Another account's global memory is its own, with its own room.
    expect((await gw.runFlow(gw.eve, noteFlow('eve global', { scope: 'global' }))).run.status).to.equal('completed');
  });

  it('kgMaxAssertions and kgMaxTriplesPerOwner', async () => {
    const triple = (o: string) => ({ subject: 'ex:a', predicate: 'rdf:type', object: o });
    const many = await gw.runFlow(gw.bob, chainFlow([memoryNode('a', 'memory_kg_assert', { assertions: [triple('x'), triple('y'), triple('z')] }, ['count'])], [], []));
    expect(many.run.error).to.equal("MEMORY_KG_ASSERT got 3 assertions; at most 2 per call (the memory plugin's kgMaxAssertions).");
    const full = await gw.runFlow(gw.bob, chainFlow([memoryNode('a', 'memory_kg_assert', { assertions: [triple('x'), triple('y')] }, ['count'])], [], []));
    expect(String(full.run.error)).to.match(/already holds 1 triples \(the memory plugin's kgMaxTriplesPerOwner\)/);
    // Nothing of the refused call was kept (one transaction).
    expect((await gw.get(gw.bob, '/api/gateway/memory/kg')).json<{ items: unknown[] }>().items).to.deep.equal([]);
  });
});
