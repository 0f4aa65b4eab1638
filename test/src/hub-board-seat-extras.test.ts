import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

/** Reference §8.5, per seat: colleague notes, opening a direct channel, the seat's own about. */
describe('hub per-seat routes (reference §8.5)', () => {
  let hub: HubHarness;
  let key: Record<'ann' | 'bob' | 'op' | 'gone' | 'old', string>;

  before(async () => {
    hub = await startHub({ reads: { colleagueNoteMaxChars: 50 } });
    key = await hub.seats(['ann', 'bob', 'op', 'gone', 'old'] as const, ['op']);
    expect((await hub.call('POST', '/agents/gone/retire', key.op, {})).status).to.equal(200);
    expect((await hub.call('DELETE', '/agents/gone', key.op)).status).to.equal(200);
    expect((await hub.call('POST', '/agents/old/retire', key.op, { reason: 'done' })).status).to.equal(200);
  });
  after(() => hub.stop());

  describe('colleague notes', () => {
    it('upserts a note per (observer, subject) and lists only the caller\'s own, sorted by subject', async () => {
      const first = await hub.call('PUT', '/colleagues/op', key.ann, { note: 'runs the hub' });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body).to.include({ observer: 'ann', subject: 'op', note: 'runs the hub' });
      expect(first.body.updated_at).to.be.a('number');
      await hub.call('PUT', '/colleagues/bob', key.ann, { note: 'reviews fast' });
      await hub.call('PUT', '/colleagues/bob', key.ann, { note: 'reviews fast, tests well' });
      await hub.call('PUT', '/colleagues/ann', key.bob, { note: "bob's private view of ann" });
      const mine = await hub.call('GET', '/colleagues', key.ann);
      expect(mine.body.map((n: { subject: string; note: string }) => [n.subject, n.note])).to.deep.equal([['bob', 'reviews fast, tests well'], ['op', 'runs the hub']]);
      expect(JSON.stringify(mine.body)).to.not.include("bob's private view");
      expect((await hub.call('GET', '/colleagues?subject=bob', key.ann)).body).to.have.length(1);
      expect((await hub.call('GET', '/colleagues?subject=nobody', key.ann)).body).to.deep.equal([]);
      // Another seat's notes about ann stay bob's: ann asking about herself sees nothing of them.
      expect((await hub.call('GET', '/colleagues?subject=ann', key.ann)).body).to.deep.equal([]);
    });

    it('notes about yourself and about retired seats are allowed; unknown 404, deleted 410, over the cap 413', async () => {
      expect((await hub.call('PUT', '/colleagues/ann', key.ann, { note: 'me' })).status).to.equal(200);
      expect((await hub.call('PUT', '/colleagues/old', key.ann, { note: 'was here' })).status).to.equal(200);
      const unknown = await hub.call('PUT', '/colleagues/ghost', key.ann, { note: 'x' });
      expect([unknown.status, unknown.body.detail]).to.deep.equal([404, "agent 'ghost' is not registered"]);
      const deleted = await hub.call('PUT', '/colleagues/gone', key.ann, { note: 'x' });
      expect([deleted.status, deleted.body.detail]).to.deep.equal([410, "'gone' was deleted — notes about a deleted identity cannot be created"]);
      const long = await hub.call('PUT', '/colleagues/bob', key.ann, { note: 'é'.repeat(51) });
      expect([long.status, long.body.detail]).to.deep.equal([413, 'note exceeds 50 characters']);
      expect((await hub.call('PUT', '/colleagues/bob', key.ann, { note: 'é'.repeat(50) })).status).to.equal(200);
      expect((await hub.call('PUT', '/colleagues/bob', key.ann, {})).status).to.equal(422);
    });

    it('takes seat keys only: the admin key is 401, no key is 401', async () => {
      expect((await hub.call('GET', '/colleagues', hub.kernel.adminToken)).status).to.equal(401);
      expect((await hub.call('GET', '/colleagues')).status).to.equal(401);
    });
  });

  describe('POST /dms/{peer}', () => {
    it('opens the direct channel without posting from the caller, idempotently, and answers its channel info', async () => {
      const res = await hub.call('POST', '/dms/bob', key.ann);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.channel).to.include({ name: 'dm:ann--bob', private: true });
      expect(res.body.is_dm).to.equal(true);
      expect(res.body.members.map((m: { agent_id: string }) => m.agent_id).sort()).to.deep.equal(['ann', 'bob']);
      const again = await hub.call('POST', '/dms/bob', key.ann, {});
      expect(again.status).to.equal(200);
      const rows = (await hub.call('GET', `/channels/${encodeURIComponent('dm:ann--bob')}/messages`, key.bob)).body;
      expect(rows.filter((m: { sender: string }) => m.sender === 'ann')).to.deep.equal([]);
    });

    it('re-seats a peer who left', async () => {
      expect((await hub.call('POST', `/channels/${encodeURIComponent('dm:ann--bob')}/leave`, key.bob, {})).status).to.equal(200);
      const res = await hub.call('POST', '/dms/bob', key.ann);
      expect(res.body.members.map((m: { agent_id: string }) => m.agent_id).sort()).to.deep.equal(['ann', 'bob']);
    });

    it('refuses yourself (400), an unknown seat (404), a retired one (404)', async () => {
      expect((await hub.call('POST', '/dms/ann', key.ann)).body.detail).to.equal('cannot open a direct channel with yourself');
      const ghost = await hub.call('POST', '/dms/ghost', key.ann);
      expect([ghost.status, ghost.body.detail]).to.deep.equal([404, "agent 'ghost' is not registered"]);
      const old = await hub.call('POST', '/dms/old', key.ann);
      expect([old.status, old.body.detail]).to.deep.equal([404, "agent 'old' has been retired (decommissioned) — no new direct channel"]);
    });

    it('while paused: 423 between peers, open with an operator', async () => {
      await hub.call('POST', '/admin/pause', hub.kernel.adminToken, { reason: 'maintenance' });
      try {
        expect((await hub.call('POST', '/dms/bob', key.ann)).status).to.equal(423);
        expect((await hub.call('POST', '/dms/op', key.ann)).status).to.equal(200);
      } finally {
        await hub.call('DELETE', '/admin/pause', hub.kernel.adminToken);
      }
    });
  });

  describe('PUT /me/about', () => {
    it('sets the cleaned text and answers the AgentInfo; whoami and members serve it', async () => {
      const res = await hub.call('PUT', '/me/about', key.bob, { about: '  reviews\u0000\u0001code\nfast ' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ id: 'bob', about: 'reviews code fast', operator: false });
      expect((await hub.call('GET', '/whoami', key.bob)).body.about).to.equal('reviews code fast');
      const members = (await hub.call('GET', '/channels/commons/members', key.ann)).body;
      expect(members.find((m: { agent_id: string }) => m.agent_id === 'bob').about).to.equal('reviews code fast');
    });

    it('refuses over 500 characters with the cap sentence, a missing about with 422, and 423 while paused', async () => {
      const long = await hub.call('PUT', '/me/about', key.bob, { about: 'a'.repeat(501) });
      expect([long.status, long.body.detail]).to.deep.equal([400, 'about is 501 characters; the cap is 500. Shorten it — the hub will not choose which 1 characters to drop.']);
      expect((await hub.call('PUT', '/me/about', key.bob, {})).status).to.equal(422);
      await hub.call('POST', '/admin/pause', hub.kernel.adminToken, {});
      try {
        expect((await hub.call('PUT', '/me/about', key.bob, { about: 'x' })).status).to.equal(423);
        expect((await hub.call('PUT', '/me/about', key.op, { about: 'operator' })).status).to.equal(200);
      } finally {
        await hub.call('DELETE', '/admin/pause', hub.kernel.adminToken);
      }
    });

    it('is found by people search after the change', async () => {
      await hub.call('PUT', '/me/about', key.ann, { about: 'zebra wrangler' });
      const res = await hub.call('GET', '/search?q=zebra&kind=agent', key.bob);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(JSON.stringify(res.body)).to.include('ann');
    });
  });
});
