/**
 * Issue 14 security review (LMDB prefix ranges): an account's memory owners were read with the range
 * end `[account, '\uffff']`, which leaves out every owner id starting with a character above U+FFFF
 * (an emoji: ordered-binary writes UTF-8) or with U+FFFF itself. A flow may name any owner id, so
 * such an owner's triples were missing from the overview and survived "delete all of my memory".
 */
import { expect } from 'chai';
import { chainFlow, memoryGateway, memoryNode } from './helpers/memory.js';

const OWNERS = ['\u{1F600} owner', '\uffff owner', '\u{10FFFF}'];

type Overview = { owners: Array<{ owner_id: string; spans: number; triples: number }> };

describe('ranges: memory owners whose id starts with U+FFFF or above it', function () {
  this.timeout(300_000);
  const gw = memoryGateway();
  before(async () => {
    await gw.boot();
    const flow = chainFlow(
      OWNERS.map((owner, i) => memoryNode(`a${i}`, 'memory_kg_assert', { assertions: [{ subject: `ex:s${i}`, predicate: 'schema:name', object: `hidden ${i}` }], owner_id: owner }, ['count'])),
      [], [],
    );
    const { run } = await gw.runFlow(gw.bob, flow);
    expect(run.status, run.error ?? '').to.equal('completed');
  });
  after(() => gw.stop());

  it('GET /memory lists every owner with its triples', async () => {
    const overview = (await gw.get(gw.bob, '/api/gateway/memory')).json<Overview>().owners;
    for (const owner of OWNERS) expect(overview, owner).to.deep.include({ owner_id: owner, spans: 0, triples: 1 });
  });

  it('DELETE /memory?confirm=all deletes their triples too (none survive)', async () => {
    const res = await gw.del(gw.bob, '/api/gateway/memory?confirm=all');
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json<{ deleted_triples: number }>().deleted_triples).to.equal(OWNERS.length);
    for (const owner of OWNERS) {
      const left = await gw.get(gw.bob, `/api/gateway/memory/kg?owner_id=${encodeURIComponent(owner)}`);
      expect(left.statusCode).to.equal(200);
      expect(left.json<{ items: unknown[] }>().items, owner).to.deep.equal([]);
    }
    expect((await gw.get(gw.bob, '/api/gateway/memory')).json()).to.deep.equal({ owners: [] });
  });
});
