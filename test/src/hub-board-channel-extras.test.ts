import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { until } from './helpers/until.js';

/** Reference §8.5, per channel: charter receipts, fshist, by-seq, ratings, resolve_thread, PUT owner. */
describe('hub per-channel routes (reference §8.5)', () => {
  let hub: HubHarness;
  let key: Record<'owner' | 'ann' | 'bob' | 'op' | 'stranger' | 'judge' | 'dora', string>;

  before(async () => {
    hub = await startHub({ postRate: { perMinute: 0 } });
    key = await hub.seats(['owner', 'ann', 'bob', 'op', 'stranger', 'dora'] as const, ['op']) as typeof key;
    key.judge = await hub.seat('judge', { mission: 'rule on stalled threads' });
    await hub.room('proj', key.owner, [key.ann, key.bob, key.judge]);
    await hub.room('secret', key.owner, [], true);
    await hub.call('POST', '/channels/secret/invites', key.owner, { agent_id: 'ann' }).then(async (inv) => {
      expect((await hub.call('POST', '/channels/secret/join', key.ann, { invite_token: inv.body.invite_token })).status).to.equal(200);
    });
  });
  after(() => hub.stop());

  const post = async (channel: string, token: string, body: Record<string, unknown>) => {
    const res = await hub.call('POST', `/channels/${channel}/messages`, token, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; seq: number };
  };

  describe('GET /channels/{c}/charter/receipts', () => {
    it('lists every member in join order with its receipt; current only at the head', async () => {
      await hub.call('GET', '/channels/proj/fs/channel/charter.md', key.ann);
      const res = await hub.call('GET', '/channels/proj/charter/receipts', key.bob);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ channel: 'proj', path: 'channel/charter.md', version: 1, gated: false });
      expect(res.body.members.map((m: { agent_id: string }) => m.agent_id)).to.deep.equal(['owner', 'ann', 'bob', 'judge']);
      const by = Object.fromEntries(res.body.members.map((m: { agent_id: string }) => [m.agent_id, m]));
      expect(by.owner).to.include({ role: 'owner', version: 1, current: true });
      expect(by.owner.read_at).to.be.a('number');
      expect(by.ann).to.include({ role: 'member', version: 1, current: true });
      expect(by.bob).to.deep.equal({ agent_id: 'bob', role: 'member', version: null, read_at: null, current: false });
    });

    it('says gated when the room requires its charter', async () => {
      await hub.room('gated', key.owner, [key.ann]);
      expect((await hub.call('PUT', '/channels/gated/store/channel%3Ameta', key.owner, { value: { norms_required: true } })).status).to.equal(200);
      expect((await hub.call('GET', '/channels/gated/charter/receipts', key.ann)).body.gated).to.equal(true);
    });

    it('refuses a non-member: 403 for a public room, 404 for a private one (the same answer as a missing room)', async () => {
      const pub = await hub.call('GET', '/channels/proj/charter/receipts', key.stranger);
      expect(pub.status).to.equal(403);
      expect(pub.body.detail).to.equal("'stranger' is not a member of 'proj'");
      const priv = await hub.call('GET', '/channels/secret/charter/receipts', key.stranger);
      const missing = await hub.call('GET', '/channels/nowhere/charter/receipts', key.stranger);
      expect(priv.status).to.equal(404);
      expect(priv.body.detail).to.equal("channel 'secret' not found");
      expect(missing.body.detail).to.equal("channel 'nowhere' not found");
    });
  });

  describe('GET /channels/{c}/fshist/{path}', () => {
    it("serves a file's fs audit rows oldest first, deletes included, with since_seq and limit", async () => {
      await hub.call('PUT', '/channels/proj/fs/notes/h%201.md', key.ann, { content: 'one' });
      await hub.call('PUT', '/channels/proj/fs/notes/other.md', key.ann, { content: 'other' });
      await hub.call('PUT', '/channels/proj/fs/notes/h%201.md', key.bob, { content: 'two' });
      expect((await hub.call('DELETE', '/channels/proj/fs/notes/h%201.md', key.ann)).status).to.equal(200);
      const res = await hub.call('GET', '/channels/proj/fshist/notes/h%201.md', key.owner);
      expect(res.status).to.equal(200);
      expect(res.body.map((m: { sender: string; title: string; data: unknown }) => [m.sender, m.title, m.data])).to.deep.equal([
        ['ann', 'fs:put notes/h 1.md', { op: 'put', path: 'notes/h 1.md', version: 1, size_bytes: 3 }],
        ['bob', 'fs:put notes/h 1.md', { op: 'put', path: 'notes/h 1.md', version: 2, size_bytes: 3 }],
        ['ann', 'fs:delete notes/h 1.md', { op: 'delete', path: 'notes/h 1.md', version: 3, size_bytes: 0 }],
      ]);
      expect(res.body.every((m: { kind: string }) => m.kind === 'fs')).to.equal(true);
      expect(res.body[0]).to.not.have.property('ratings');
      const after = await hub.call('GET', `/channels/proj/fshist/notes/h%201.md?since_seq=${res.body[0].seq}&limit=1`, key.owner);
      expect(after.body.map((m: { data: { version: number } }) => m.data.version)).to.deep.equal([2]);
      const zero = await hub.call('GET', '/channels/proj/fshist/notes/h%201.md?limit=0', key.owner);
      expect(zero.body).to.have.length(1);
    });

    it('refuses a path breaking the vfs rules (400) and a non-integer since_seq (422)', async () => {
      expect((await hub.call('GET', '/channels/proj/fshist/a/%20b%20/c', key.owner)).status).to.equal(400);
      expect((await hub.call('GET', '/channels/proj/fshist/a.md?since_seq=x', key.owner)).status).to.equal(422);
    });

    it('never shows another room\'s files to a non-member', async () => {
      await hub.call('PUT', '/channels/secret/fs/plan.md', key.owner, { content: 'hidden' });
      const res = await hub.call('GET', '/channels/secret/fshist/plan.md', key.bob);
      expect(res.status).to.equal(404);
      expect(JSON.stringify(res.body)).to.not.include('hidden');
    });
  });

  describe('GET /channels/{c}/messages/by-seq/{seq}', () => {
    it('serves one decorated row and records no read', async () => {
      const m = await post('proj', key.ann, { body: 'by seq', status: 'open', to: ['bob'] });
      const res = await hub.call('GET', `/channels/proj/messages/by-seq/${m.seq}`, key.bob);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: m.id, seq: m.seq, body: 'by seq', read: false, closed: false });
      expect(res.body.ratings).to.deep.equal({ up: 0, down: 0, mine: 0 });
      const again = await hub.call('GET', `/channels/proj/messages/by-seq/${m.seq}`, key.bob);
      expect(again.body.read).to.equal(false);
    });

    it('404s a seq past the head, 422s a non-integer, 404s a private room to a non-member', async () => {
      const miss = await hub.call('GET', '/channels/proj/messages/by-seq/99999', key.bob);
      expect(miss.status).to.equal(404);
      expect(miss.body.detail).to.equal("no message #99999 in 'proj'");
      expect((await hub.call('GET', '/channels/proj/messages/by-seq/abc', key.bob)).status).to.equal(422);
      expect((await hub.call('GET', '/channels/secret/messages/by-seq/1', key.bob)).status).to.equal(404);
    });

    it('serves a retracted row as its tombstone', async () => {
      const m = await post('proj', key.ann, { body: 'soon gone' });
      await hub.call('POST', `/channels/proj/messages/${m.id}/retract`, key.ann, {});
      const res = await hub.call('GET', `/channels/proj/messages/by-seq/${m.seq}`, key.bob);
      expect(res.body).to.include({ retracted: true, ratings: null });
      expect(res.body.body).to.not.include('soon gone');
    });
  });

  describe('GET /channels/{c}/messages/{id}/ratings', () => {
    it('lists the ratings newest update first; none for a retracted message', async () => {
      const m = await post('proj', key.ann, { body: 'rate me' });
      await hub.call('PUT', `/channels/proj/messages/${m.id}/rating`, key.bob, { value: 1, note: 'good' });
      // Ratings carry millisecond times: on a fast machine both PUTs can land in one millisecond, a tie
      // the route breaks by rater name. Let the clock move so "newest first" is what is checked.
      const first = Date.now();
      await until(() => Date.now() > first, { what: 'the clock to pass the first rating' });
      await hub.call('PUT', `/channels/proj/messages/${m.id}/rating`, key.owner, { value: -1 });
      const res = await hub.call('GET', `/channels/proj/messages/${m.id}/ratings`, key.judge);
      expect(res.status).to.equal(200);
      expect(res.body.map((r: { rater: string; value: number }) => [r.rater, r.value])).to.deep.equal([['owner', -1], ['bob', 1]]);
      expect(res.body[1]).to.include({ channel: 'proj', message_id: m.id, target: 'ann', note: 'good' });
      await hub.call('POST', `/channels/proj/messages/${m.id}/retract`, key.ann, {});
      expect((await hub.call('GET', `/channels/proj/messages/${m.id}/ratings`, key.judge)).body).to.deep.equal([]);
    });

    it("404s an unknown id and another channel's id (cut to 40 characters)", async () => {
      const elsewhere = await post('secret', key.ann, { body: 'in secret' });
      const res = await hub.call('GET', `/channels/proj/messages/${elsewhere.id}/ratings`, key.ann);
      expect(res.status).to.equal(404);
      expect(res.body.detail).to.equal(`message '${elsewhere.id}' not found in 'proj'`);
      const long = 'x'.repeat(60);
      expect((await hub.call('GET', `/channels/proj/messages/${long}/ratings`, key.ann)).body.detail).to.equal(`message '${'x'.repeat(40)}' not found in 'proj'`);
      expect((await hub.call('GET', `/channels/secret/messages/${elsewhere.id}/ratings`, key.bob)).status).to.equal(404);
    });
  });

  describe('POST /channels/{c}/messages/{id}/resolve_thread', () => {
    it("closes the caller's own open rows with resolved replies and reports the claims citing the thread", async () => {
      const root = await post('proj', key.ann, { body: 'root question', status: 'open' });
      const follow = await post('proj', key.ann, { body: 'follow-up', status: 'open', reply_to: root.id });
      await hub.call('PUT', '/channels/proj/store/claim%3Aship', key.bob, { value: { status: 'working on it', source_message_id: `proj#${root.seq}` } });
      await hub.call('PUT', '/channels/proj/store/claim%3Adone-one', key.bob, { value: { status: 'done', source_message_id: root.id } });
      const res = await hub.call('POST', `/channels/proj/messages/${root.id}/resolve_thread`, key.ann);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ channel: 'proj', root: root.id, truncated: false });
      expect(res.body.closed).to.have.length(2);
      expect(res.body.claims).to.deep.equal([{ key: 'claim:ship', owner: 'bob', status: 'working on it' }]);
      const closers = await Promise.all(res.body.closed.map(async (id: string) => (await hub.call('GET', `/channels/proj/messages/${id}`, key.ann)).body.at(-1)));
      expect(closers.map((m: { reply_to: string }) => m.reply_to).sort()).to.deep.equal([root.id, follow.id].sort());
      for (const m of closers) expect(m).to.include({ sender: 'ann', status: 'resolved', title: 'thread closed', body: 'thread closed: this work is stood down. Stop here and post no further replies on it.' });
      const again = await hub.call('POST', `/channels/proj/messages/${root.id}/resolve_thread`, key.ann, { body: 'done' });
      expect(again.body.closed).to.deep.equal([]);
      // No body at all is fine too.
      expect((await hub.call('POST', `/channels/proj/messages/${root.id}/resolve_thread`, key.ann)).status).to.equal(200);
    });

    it("refuses to close another seat's open rows (nothing closed) unless the caller is an operator or a ruling delegate", async () => {
      const root = await post('proj', key.ann, { body: 'ann asks', status: 'open' });
      await post('proj', key.bob, { body: 'bob asks too', status: 'open', reply_to: root.id });
      const refused = await hub.call('POST', `/channels/proj/messages/${root.id}/resolve_thread`, key.owner, { body: 'stop' });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.equal("closing a thread is the asker's, an operator's, or a ruling delegate's act — this trail has 2 open message(s) asked by other seat(s) (ann, bob), so NOTHING was closed. Close your own, or ask an operator or the room's delegate.");
      expect((await hub.call('GET', `/channels/proj/messages/by-seq/${root.seq}`, key.owner)).body.closed).to.equal(false);
      expect((await hub.call('PUT', '/admin/delegation', hub.kernel.adminToken, { agent_id: 'judge', powers: ['ruling'], scope: 'proj' })).status).to.equal(200);
      const ruled = await hub.call('POST', `/channels/proj/messages/${root.id}/resolve_thread`, key.judge, { body: 'ruled closed' });
      expect(ruled.status, JSON.stringify(ruled.body)).to.equal(200);
      expect(ruled.body.closed).to.have.length(2);
    });

    it("404s another channel's message and a non-member's private room", async () => {
      const elsewhere = await post('secret', key.ann, { body: 'x', status: 'open' });
      const res = await hub.call('POST', `/channels/proj/messages/${elsewhere.id}/resolve_thread`, key.ann, {});
      expect(res.status).to.equal(404);
      expect(res.body.detail).to.equal(`message '${elsewhere.id}' not found in 'proj'`);
      expect((await hub.call('POST', `/channels/secret/messages/${elsewhere.id}/resolve_thread`, key.bob, {})).status).to.equal(404);
    });
  });

  describe('PUT /channels/{c}/owner', () => {
    it('hands the room to a member: roles move, two notices are posted; the same owner again is changed: false', async () => {
      await hub.room('handover', key.owner, [key.ann]);
      const res = await hub.call('PUT', '/channels/handover/owner', key.owner, { to: 'ann' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.deep.equal({ channel: 'handover', owner: 'ann', previous: 'owner', changed: true, by: 'owner' });
      const members = (await hub.call('GET', '/channels/handover/members', key.ann)).body;
      expect(Object.fromEntries(members.map((m: { agent_id: string; role: string }) => [m.agent_id, m.role]))).to.deep.equal({ owner: 'member', ann: 'owner' });
      const rows = (await hub.call('GET', '/channels/handover/messages?limit=100', key.ann)).body.slice(-2);
      expect(rows[0]).to.include({ sender: 'hub', kind: 'system', status: 'fyi', body: "channel ownership transferred: owner -> ann (by owner). ann now owns the charter, the `channel:` rows, invites and the room's end." });
      expect(rows[1].to).to.deep.equal(['ann']);
      expect(rows[1].body).to.match(/^YOU NOW OWN 'handover' \(ann\), handed over by owner\. /);
      expect((await hub.call('PUT', '/channels/handover/owner', key.ann, { to: 'ann' })).body).to.deep.equal({ channel: 'handover', owner: 'ann', changed: false });
      // The new owner now administers the room (invites), the old one no longer does.
      expect((await hub.call('POST', '/channels/handover/invites', key.owner, { agent_id: 'bob' })).status).to.equal(403);
      expect((await hub.call('POST', '/channels/handover/invites', key.ann, { agent_id: 'bob' })).status).to.equal(200);
    });

    it('refuses a plain member (403), an unregistered target (404), a non-member target (409), a DM (400)', async () => {
      await hub.room('handover2', key.owner, [key.ann]);
      const plain = await hub.call('PUT', '/channels/handover2/owner', key.ann, { to: 'ann' });
      expect(plain.status).to.equal(403);
      expect(plain.body.detail).to.equal("transferring ownership in 'handover2' needs the channel owner (owner), an operator, or a delegate holding ruling/operational scoped to this channel. Ask owner or an operator — or ask the operator to delegate it to you.");
      expect((await hub.call('PUT', '/channels/handover2/owner', key.owner, { to: 'ghost' })).body.detail).to.equal("agent 'ghost' is not registered");
      const outsider = await hub.call('PUT', '/channels/handover2/owner', key.owner, { to: 'bob' });
      expect(outsider.status).to.equal(409);
      expect(outsider.body.detail).to.equal("'bob' is not a member of 'handover2' — invite them first, or they would own a room they cannot read");
      await hub.call('POST', '/dms/bob/messages', key.ann, { body: 'hi' });
      const dm = await hub.call('PUT', `/channels/${encodeURIComponent('dm:ann--bob')}/owner`, key.ann, { to: 'bob' });
      expect(dm.status).to.equal(400);
    });

    it("a non-member without authority learns nothing of a private room (404); an operator hands it over without being a member", async () => {
      const hidden = await hub.call('PUT', '/channels/secret/owner', key.stranger, { to: 'stranger' });
      expect(hidden.status).to.equal(404);
      expect(hidden.body.detail).to.equal("channel 'secret' not found");
      const byOp = await hub.call('PUT', '/channels/secret/owner', key.op, { to: 'ann' });
      expect(byOp.status, JSON.stringify(byOp.body)).to.equal(200);
      expect(byOp.body).to.include({ owner: 'ann', previous: 'owner', by: 'op' });
    });

    it("an operator may hand the ownerless commons to a member; the previous owner is named as its creator, 'hub'", async () => {
      const res = await hub.call('PUT', '/channels/commons/owner', key.op, { to: 'dora' });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ owner: 'dora', previous: 'hub', changed: true });
      expect((await hub.call('PUT', '/channels/commons/owner', key.ann, { to: 'ann' })).status).to.equal(403);
    });

    it('answers 423 while the hub is paused, and 409 for an archived room', async () => {
      await hub.room('ending', key.owner, [key.ann]);
      await hub.call('POST', '/channels/ending/archive', key.owner, {});
      const archived = await hub.call('PUT', '/channels/ending/owner', key.op, { to: 'ann' });
      expect(archived.status).to.equal(409);
      expect((await hub.call('POST', '/admin/pause', hub.kernel.adminToken, { reason: 'test' })).status).to.equal(200);
      try {
        expect((await hub.call('PUT', '/channels/proj/owner', key.owner, { to: 'ann' })).status).to.equal(423);
      } finally {
        await hub.call('DELETE', '/admin/pause', hub.kernel.adminToken);
      }
    });
  });
});
