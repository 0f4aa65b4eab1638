import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub content: phases, work rows, rulings and the digest', () => {
  let hub: HubHarness;
  let owner: string;
  let ann: string;
  let bob: string;

  before(async () => {
    hub = await startHub({ postRate: { perMinute: 0 } }); // posts dozens of threads at once
    ({ owner, ann, bob } = await hub.seats(['owner', 'ann', 'bob']));
    await hub.room('proj', owner, [ann, bob]);
    await hub.room('side', owner, [ann]);
    await hub.room('hidden', owner, [], true);
  });
  after(() => hub.stop());

  const put = (channel: string, key: string, token: string, value: unknown) => hub.call('PUT', `/channels/${channel}/store/${encodeURIComponent(key)}`, token, { value });
  const post = async (token: string, args: Record<string, unknown>, channel = 'proj') => {
    const res = await hub.call('POST', `/channels/${channel}/messages`, token, args);
    if (res.status !== 200) throw new Error(`post: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  describe('phases', () => {
    it('serves phase:<key> rows as PhaseRows in info and the digest (advisory)', async () => {
      const res = await put('proj', 'phase:build', ann, { track: 'core', current: 'design', next: 'implement', steward: 'ann', paths: ['docs/design.md'], note: 'draft' });
      expect(res.status).to.equal(200);
      const info = (await hub.call('GET', '/channels/proj/info', bob)).body;
      expect(info.phases).to.deep.equal([{
        channel: 'proj', key: 'build', track: 'core', current: 'design', next: 'implement', status: 'open', steward: 'ann',
        paths: ['docs/design.md'], note: 'draft', declared_by: 'ann', declared_at: res.body.updated_at, version: 1,
      }]);
      const digest = (await hub.call('GET', '/channels/proj/digest', bob)).body;
      expect(digest.phases).to.deep.equal(info.phases);
      expect(digest.phase_lines).to.deep.equal(['build: design → implement (open, steward ann)']);
      expect(digest.counts.phases).to.equal(1);
    });

    it('validates phase values, and gates completion when the room says so', async () => {
      expect((await put('proj', 'phase:build', ann, { status: 'done' })).status).to.equal(400);
      expect((await put('proj', 'phase:build', ann, 'text')).status).to.equal(400);
      await put('proj', 'channel:meta', owner, { gated_acts: ['phase_complete'] });
      const refused = await put('proj', 'phase:build', ann, { current: 'implement', status: 'complete' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.match(/^completing a phase in 'proj' is a gated act/);
      expect((await put('proj', 'phase:build', owner, { current: 'implement', status: 'complete' })).body.version).to.equal(2);
      await put('proj', 'channel:meta', owner, {});
    });
  });

  describe('work rows', () => {
    it('lists work:<id> rows sorted by id with their card fields', async () => {
      await put('proj', 'work:keel-0002', ann, { title: 'Second', status: 'todo' });
      const first = await put('proj', 'work:keel-0001', bob, { title: 'First', status: 'doing', owner: 'bob', priority: 1, card: { points: 3 } });
      const rows = (await hub.call('GET', '/channels/proj/work', ann)).body;
      expect(rows.map((r: { id: string }) => r.id)).to.deep.equal(['keel-0001', 'keel-0002']);
      expect(rows[0]).to.deep.equal({
        id: 'keel-0001', title: 'First', status: 'doing', owner: 'bob', card: { points: 3 }, priority: 1, receipt: null,
        version: 1, updated_by: 'bob', updated_at: first.body.updated_at,
      });
      expect(rows[1]).to.include({ owner: null, card: null });
    });

    it("gathers one item across the caller's channels: rows, claims, decisions, messages (item_ref or mention)", async () => {
      await put('side', 'work:keel-0001', ann, { title: 'Side view' });
      await put('side', 'claim:keel-0001', ann, { by: 'ann' });
      await put('proj', 'decision:storage', owner, { text: 'keel-0001 uses LMDB' });
      await put('hidden', 'work:keel-0001', owner, { title: 'secret' });
      const byRef = await post(bob, { body: 'working on it', data: { item_ref: 'keel-0001' } });
      const byMention = await post(ann, { body: 'see keel-0001 for context' }, 'side');
      await post(ann, { body: 'keel-00010 is another item' });
      const res = await hub.call('GET', '/work/keel-0001', ann);
      expect(res.status).to.equal(200);
      expect(res.body.item_id).to.equal('keel-0001');
      expect(res.body.work_rows.map((r: { channel: string }) => r.channel)).to.deep.equal(['proj', 'side']);
      expect(res.body.work_rows[1]).to.include({ channel: 'side', version: 1, updated_by: 'ann' });
      expect(res.body.claims.map((r: { channel: string; key: string }) => `${r.channel}/${r.key}`)).to.deep.equal(['side/claim:keel-0001']);
      expect(res.body.decisions.map((r: { key: string }) => r.key)).to.deep.equal(['decision:storage']);
      expect(res.body.messages.map((m: { id: string; via: string }) => [m.id, m.via])).to.deep.equal([[byRef.id, 'item_ref'], [byMention.id, 'mention']]);
      const bad = await hub.call('GET', '/work/Not_An_Item', ann);
      expect(bad.status).to.equal(400);
      expect(bad.body.detail).to.match(/must look like '<package>-<NNNN>'/);
      expect((await hub.call('GET', '/work/keel-12', ann)).status).to.equal(400);
    });
  });

  describe('digest', () => {
    it('lists open questions, what was decided (answers, declines, resolved replies) and decisions, skipping retracted rows', async () => {
      await hub.room('dig', owner, [ann, bob]);
      const q1 = await post(ann, { status: 'open', title: 'q1', body: 'two asks', asks: [{ id: 'a1', text: 'first?' }, { id: 'a2', text: 'second?', to: ['bob'] }] }, 'dig');
      const q2 = await post(ann, { status: 'open', title: 'q2', body: 'one ask', asks: [{ id: 'b1', text: 'decline me?' }] }, 'dig');
      const q3 = await post(bob, { status: 'open', title: 'q3', body: 'no asks' }, 'dig');
      const gone = await post(ann, { status: 'open', title: 'gone', body: 'retracted', asks: [{ id: 'c1', text: 'never mind' }] }, 'dig');
      await hub.call('POST', `/channels/dig/messages/${gone.id}/retract`, ann, {});
      let digest = (await hub.call('GET', '/channels/dig/digest', bob)).body;
      expect(digest.channel).to.equal('dig');
      // An open question without asks is open too, until its thread closes (reference §8.1 B2).
      expect(digest.open_questions.map((q: { id: string }) => q.id)).to.deep.equal([q1.id, q2.id, q3.id]);
      expect(digest.open_questions[0]).to.include({ seq: q1.seq, sender: 'ann', title: 'q1', status: 'open' });
      expect(digest.open_questions[0].pending_asks).to.deep.equal([{ id: 'a1', text: 'first?' }, { id: 'a2', text: 'second?', to: ['bob'] }]);
      expect(digest.decided).to.deep.equal([]);

      await post(bob, { status: 'reply', reply_to: q1.id, body: 'both', answers: ['a1', 'a2'] }, 'dig');
      await post(bob, { status: 'reply', reply_to: q2.id, body: 'no', declines: ['b1'] }, 'dig');
      const closing = await post(bob, { status: 'resolved', reply_to: q3.id, body: 'done myself' }, 'dig');
      await put('dig', 'decision:db', owner, 'lmdb');
      digest = (await hub.call('GET', '/channels/dig/digest', bob)).body;
      expect(digest.open_questions).to.deep.equal([]);
      // The asker's closing `resolved` reply is a row of its own beside the question it closed.
      expect(digest.decided.map((d: { id: string }) => d.id)).to.deep.equal([closing.id, q3.id, q2.id, q1.id]);
      expect(digest.decided[0]).to.deep.equal({ seq: closing.seq, id: closing.id, sender: 'bob', title: closing.title, created_at: closing.created_at, resolved: true });
      expect(digest.decided[1]).to.include({ self_resolved: true });
      expect(digest.decided[1].answered_by, 'the asker never answers itself').to.deep.equal([]);
      expect(digest.decided[2].answered_by, 'a decline is not an answer').to.deep.equal([]);
      expect(digest.decided[2].declined_asks).to.deep.equal(['b1']);
      expect(digest.decided[2].declined_by).to.deep.equal(['bob']);
      expect(digest.decided[3].answered_by).to.deep.equal(['bob']);
      expect(digest.decided[3]).to.not.have.property('declined_asks');
      expect(digest.decisions).to.deep.equal([{ key: 'decision:db', value: 'lmdb', version: 1, updated_by: 'owner' }]);
      expect(digest.counts).to.deep.equal({
        open_questions: 0, decided_shown: 4, decided_total: 4, declined_asks: 1, decisions: 1, rulings: 0, phases: 0, unacknowledged_rulings: 0,
      });
    });

    it('shows only the newest 50 decided threads', async () => {
      await hub.room('many', owner, [ann, bob]);
      for (let i = 0; i < 52; i++) {
        const q = await post(ann, { status: 'open', body: `q${i}`, asks: [{ id: `m${i}`, text: 'ok?' }] }, 'many');
        await post(bob, { status: 'reply', reply_to: q.id, body: 'ok', answers: [`m${i}`] }, 'many');
      }
      const digest = (await hub.call('GET', '/channels/many/digest', ann)).body;
      expect(digest.decided).to.have.length(50);
      expect(digest.counts).to.include({ decided_shown: 50, decided_total: 52 });
      expect(digest.decided[0].seq).to.be.greaterThan(digest.decided[49].seq);
    });
  });

  describe('rulings', () => {
    it("are made by the room's admins, listed in the digest and acknowledged per version", async () => {
      await hub.room('ruled', owner, [ann, bob]);
      const refused = await put('ruled', 'ruling:no-spam', ann, { text: 'no spam' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.match(/^rulings in 'ruled' are made by the channel owner \(owner\)/);
      expect((await put('ruled', 'ruling:no-spam', owner, { text: 'no spam', scope: [] })).status).to.equal(200);
      let digest = (await hub.call('GET', '/channels/ruled/digest', ann)).body;
      expect(digest.rulings).to.deep.equal([{ key: 'ruling:no-spam', value: { text: 'no spam', scope: [] }, version: 1, updated_by: 'owner' }]);
      expect(digest.unacknowledged_rulings).to.deep.equal([{ key: 'ruling:no-spam', value: { text: 'no spam', scope: [] }, version: 1, updated_by: 'owner', ack_version: null }]);
      const ack = await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: ['ruling:no-spam'] });
      expect(ack.body).to.deep.equal({ channel: 'ruled', agent_id: 'ann', acked: ['ruling:no-spam'] });
      digest = (await hub.call('GET', '/channels/ruled/digest', ann)).body;
      expect(digest.unacknowledged_rulings).to.deep.equal([]);
      await put('ruled', 'ruling:no-spam', owner, { text: 'no spam, ever', scope: [] });
      digest = (await hub.call('GET', '/channels/ruled/digest', ann)).body;
      expect(digest.unacknowledged_rulings.map((r: { key: string; ack_version: number }) => [r.key, r.ack_version])).to.deep.equal([['ruling:no-spam', 1]]);
    });

    it('gates posts in a rulings_required room until every ruling in scope is acknowledged', async () => {
      await put('ruled', 'channel:meta', owner, { rulings_required: true });
      await put('ruled', 'ruling:owners-only', owner, { text: 'owners tidy up', scope: ['owner'] });
      const refused = await hub.call('POST', '/channels/ruled/messages', bob, { body: 'hi' });
      expect(refused.status).to.equal(409);
      expect(refused.body.detail).to.equal(
        'this channel requires acknowledging standing rulings first: GET /channels/ruled/digest (see unacknowledged_rulings), then POST /channels/ruled/ruling-acks — pending: ruling:no-spam',
      );
      await hub.call('POST', '/channels/ruled/ruling-acks', bob, { keys: ['ruling:no-spam'] });
      expect((await hub.call('POST', '/channels/ruled/messages', bob, { body: 'hi' })).status).to.equal(200);
    });

    it('refuses acks of non-ruling keys (400), missing (404), out-of-scope (403) and revoked (409) rulings', async () => {
      const notRuling = await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: ['channel:meta'] });
      expect(notRuling.status).to.equal(400);
      const missing = await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: ['ruling:nope'] });
      expect(missing.status).to.equal(404);
      const scope = await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: ['ruling:owners-only'] });
      expect(scope.status).to.equal(403);
      expect(scope.body.detail).to.equal("ruling 'ruling:owners-only' is not in your scope");
      await put('ruled', 'ruling:old', owner, { text: 'old', active: false });
      const revoked = await hub.call('POST', '/channels/ruled/ruling-acks', ann, { keys: ['ruling:old'] });
      expect(revoked.status).to.equal(409);
      expect((await hub.call('GET', '/channels/ruled/digest', ann)).body.rulings.map((r: { key: string }) => r.key)).to.deep.equal(['ruling:no-spam', 'ruling:owners-only']);
    });
  });
});
