/**
 * The hub's core through HTTP: health, seats, channels, posting rules, asks and answers, reads,
 * inbox cursors, retraction and the hash-chained ledger (verified by the client's own code).
 */
import { expect } from 'chai';
import { verifyLedger } from '@keel/hub-client/chain';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub core', function () {
  let hub: HubHarness;
  let ada: string; // operator
  let bob: string;
  let cyd: string;

  before(async () => {
    hub = await startHub();
    ada = await hub.seat('ada', { operator: true });
    bob = await hub.seat('bob', { about: 'builds things' });
    cyd = await hub.seat('cyd');
  });
  after(() => hub?.stop());

  describe('health and identity', () => {
    it('answers /healthz without a key, with the protocol string', async () => {
      const res = await hub.call('GET', '/healthz');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ ok: true, protocol: 'agora/0.4', paused: false });
      expect(res.body.version).to.be.a('string');
    });

    it('refuses a missing or unknown key with the hub sentences', async () => {
      expect(await hub.call('GET', '/whoami')).to.deep.include({ status: 401, body: { detail: 'missing bearer token' } });
      expect(await hub.call('GET', '/whoami', 'agora_nope')).to.deep.include({ status: 401, body: { detail: 'invalid api key' } });
      // The admin key is an infrastructure credential, not a seat.
      expect((await hub.call('GET', '/whoami', hub.kernel.adminToken)).status).to.equal(401);
    });

    it('whoami names the seat, its operator flag and mission', async () => {
      const me = await hub.call('GET', '/whoami', ada);
      expect(me.status).to.equal(200);
      expect(me.body).to.include({ id: 'ada', operator: true, mission: '', protocol: 'agora/0.4' });
      expect((await hub.call('GET', '/whoami', bob)).body.operator).to.equal(false);
    });

    it('registration needs the admin key, a valid id and a fresh one; keys are shown once and stored hashed', async () => {
      expect(await hub.call('POST', '/agents', bob, { id: 'eve' })).to.deep.include({ status: 403, body: { detail: 'agent registration requires the admin key' } });
      expect((await hub.call('POST', '/agents', hub.kernel.adminToken, { id: 'Bad Id' })).status).to.equal(400);
      expect((await hub.call('POST', '/agents', hub.kernel.adminToken, { id: 'hub' })).status).to.equal(400);
      expect(await hub.call('POST', '/agents', hub.kernel.adminToken, { id: 'bob' })).to.deep.include({ status: 409, body: { detail: "agent 'bob' already exists" } });
      expect(bob).to.match(/^agora_[0-9a-f]{48}$/);
    });

    it('every new seat joins commons, with a joined notice and its cursor at the head', async () => {
      const rows = (await hub.call('GET', '/channels', cyd)).body;
      expect(rows.find((r: { name: string }) => r.name === 'commons')).to.include({ member: true, private: false });
      const history = (await hub.call('GET', '/channels/commons/messages', cyd)).body as Array<{ body: string; sender: string; kind: string }>;
      expect(history.map((m) => m.body)).to.include.members(['ada joined', 'bob joined — builds things', 'cyd joined']);
      expect(history.every((m) => m.sender === 'hub' && m.kind === 'system')).to.equal(true);
      // Nothing unread for a seat whose cursor was set at its join.
      const inbox = (await hub.call('GET', '/inbox', cyd)).body as Array<{ channel: string }>;
      expect(inbox.filter((e) => e.channel === 'commons')).to.have.length(0);
    });
  });

  describe('channels', () => {
    it('creates private rooms by default with the creator as owner, and refuses bad or taken names', async () => {
      const created = await hub.call('POST', '/channels', bob, { name: 'build' });
      expect(created.status).to.equal(200);
      expect(created.body).to.include({ name: 'build', private: true, created_by: 'bob' });
      expect((await hub.call('POST', '/channels', bob, { name: 'has space' })).body.detail).to.equal('channel name must be a simple slug (no spaces, slashes or control characters)');
      expect((await hub.call('POST', '/channels', bob, { name: 'dm:x' })).status).to.equal(400);
      expect(await hub.call('POST', '/channels', bob, { name: 'build' })).to.deep.include({ status: 409, body: { detail: "channel 'build' already exists" } });
      const members = (await hub.call('GET', '/channels/build/members', bob)).body;
      expect(members).to.deep.equal([{ channel: 'build', agent_id: 'bob', role: 'owner', about: 'builds things', mission: '', joined_at: members[0].joined_at }]);
    });

    it('hides private rooms from non-members and gates every channel route', async () => {
      const rows = (await hub.call('GET', '/channels', cyd)).body as Array<{ name: string }>;
      expect(rows.map((r) => r.name)).to.not.include('build');
      // A private room answers an outsider exactly as a missing channel does (issue 9 item 16).
      expect(await hub.call('GET', '/channels/build/messages', cyd)).to.deep.include({ status: 404, body: { detail: "channel 'build' not found" } });
      expect(await hub.call('GET', '/channels/nowhere/messages', cyd)).to.deep.include({ status: 404, body: { detail: "channel 'nowhere' not found" } });
      expect(await hub.call('POST', '/channels/build/join', cyd, {})).to.deep.include({ status: 404, body: { detail: "channel 'build' not found" } });
    });

    it('joins a private room with a single-use invite token', async () => {
      const invite = (await hub.call('POST', '/channels/build/invites', bob, { agent_id: 'cyd' })).body as { invite_token: string };
      const joined = await hub.call('POST', '/channels/build/join', cyd, { invite_token: invite.invite_token });
      expect(joined.status).to.equal(200);
      expect(joined.body.joined).to.equal(true);
      await hub.call('POST', '/channels/build/leave', cyd, {});
      expect((await hub.call('POST', '/channels/build/join', cyd, { invite_token: invite.invite_token })).status).to.equal(404);
    });

    it('lists public rooms to everyone with counts and the last seq', async () => {
      await hub.call('POST', '/channels', ada, { name: 'town', private: false });
      const row = ((await hub.call('GET', '/channels', cyd)).body as Array<Record<string, unknown>>).find((r) => r.name === 'town');
      expect(row).to.include({ private: false, member: false, member_count: 1, last_seq: 1 });
    });
  });

  describe('posting', () => {
    it('posts with the hub defaults and a dense per-channel seq', async () => {
      const head = ((await hub.call('GET', '/channels', bob)).body as Array<{ name: string; last_seq: number }>).find((r) => r.name === 'commons')!.last_seq;
      const res = await hub.call('POST', '/channels/commons/messages', bob, { body: 'hello' });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ channel: 'commons', seq: head + 1, sender: 'bob', kind: 'message', status: 'fyi', urgency: 'inbox', critical: false, title: '', body: 'hello', reply_to: null, retracted: false });
      expect(res.body.to).to.deep.equal([]);
      expect(res.body.attachments).to.deep.equal([]);
      expect(res.body.id).to.match(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    });

    it('refuses bad posts with sentences the client shows verbatim', async () => {
      const reply = await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', status: 'reply' });
      expect(reply.status).to.equal(400);
      expect(reply.body.detail).to.match(/^status=reply requires reply_to=/);
      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', reply_to: 'nope' })).body.detail).to.equal('reply_to must reference a message in this channel');
      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', to: ['zed'] })).body.detail).to.equal("cannot address non-members: ['zed']");
      const long = await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', title: 't'.repeat(121) });
      expect(long.status).to.equal(400);
      expect(long.body.detail).to.equal('text is 121 characters; the cap is 120. Shorten it — the hub will not choose which 1 characters to drop.');
      expect(await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', critical: true })).to.deep.include({ status: 403, body: { detail: 'critical messages require the operator flag' } });
      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'x'.repeat(65537) })).status).to.equal(413);
      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 1 })).status).to.equal(422);
    });

    it('tracks asks, folds declines into answers, and settles the asking message', async () => {
      const q = (await hub.call('POST', '/channels/commons/messages', ada, { title: 'two questions', body: 'see asks', status: 'open', asks: [{ id: 'q1', text: 'ship?', to: ['bob'] }, { id: 'q2', text: 'docs?' }] })).body;
      expect(q.data.asks).to.deep.equal([{ id: 'q1', text: 'ship?', to: ['bob'] }, { id: 'q2', text: 'docs?' }]);
      let row = await messageRow(q.id, bob);
      expect(row).to.include({ has_resolved_reply: false, closed: false, read: false });
      expect(row.pending_asks).to.deep.equal(['q1', 'q2']);

      const answer = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'yes', status: 'reply', reply_to: q.id, answers: ['q1'], declines: ['q2'] })).body;
      expect(answer.data.answers).to.have.members(['q1', 'q2']);
      expect(answer.data.declines).to.deep.equal(['q2']);
      row = await messageRow(q.id, ada);
      expect(row.pending_asks).to.deep.equal([]);
      expect(row).to.include({ closed: true, read: null });

      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', answers: ['nope'] })).status).to.equal(400);
      // Ids far beyond any real one are refused as bad input, not as a storage error.
      expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'x', answers: ['q'.repeat(3000)] })).status).to.equal(400);
      const longAsk = await hub.call('POST', '/channels/commons/messages', ada, { body: 'x', status: 'open', asks: [{ id: 'q'.repeat(65), text: 'long id?' }] });
      expect(longAsk.status).to.equal(400);
      expect(longAsk.body.detail).to.match(/^asks\[0\]\.id is 65 characters; the cap is 64\./);
      expect((await hub.call('POST', '/channels/commons/messages', ada, { body: 'dup', status: 'open', asks: [{ id: 'q1', text: 'again?' }] })).status).to.equal(409);

      await hub.call('POST', '/channels/commons/messages', cyd, { body: 'done', status: 'resolved', reply_to: q.id });
      expect((await messageRow(q.id, ada)).has_resolved_reply).to.equal(true);
    });

    it('paces posts per seat: a burst of 20, then 429 with the wait', async () => {
      const paced = await startHub({ postRate: { perMinute: 60, burst: 20 } });
      try {
        const key = await paced.seat('fast');
        for (let i = 0; i < 20; i++) expect((await paced.call('POST', '/channels/commons/messages', key, { body: `m${i}` })).status).to.equal(200);
        const refused = await paced.call('POST', '/channels/commons/messages', key, { body: 'one too many' });
        expect(refused.status).to.equal(429);
        expect(refused.body.detail).to.match(/^rate limit exceeded — retry in 1\.0s/);
        expect(refused.headers['retry-after']).to.equal('1');
        // Nothing was stored for the refused post.
        const bodies = ((await paced.call('GET', '/channels/commons/messages', key)).body as Array<{ body: string }>).map((m) => m.body);
        expect(bodies).to.not.include('one too many');
      } finally {
        await paced.stop();
      }
    });

    it('sends direct messages auto-addressed to the peer in dm:<a>--<b>', async () => {
      const dm = await hub.call('POST', '/dms/ada/messages', cyd, { body: 'psst' });
      expect(dm.status).to.equal(200);
      expect(dm.body).to.include({ channel: 'dm:ada--cyd', status: 'open' });
      expect(dm.body.to).to.deep.equal(['ada']);
      expect((await hub.call('POST', '/dms/cyd/messages', cyd, { body: 'me' })).status).to.equal(400);
      expect(await hub.call('POST', '/dms/zed/messages', cyd, { body: 'x' })).to.deep.include({ status: 404, body: { detail: "agent 'zed' is not registered" } });
      // Someone else's direct channel answers like a missing one (issue 9 item 16).
      expect((await hub.call('POST', '/channels/dm:ada--cyd/join', bob, {})).body.detail).to.equal("channel 'dm:ada--cyd' not found");
    });
  });

  describe('reading', () => {
    it('reads a message with its unread ancestors first and records the reads', async () => {
      const root = (await hub.call('POST', '/channels/commons/messages', ada, { body: 'root' })).body;
      const child = (await hub.call('POST', '/channels/commons/messages', ada, { body: 'child', reply_to: root.id })).body;
      const read = await hub.call('GET', `/channels/commons/messages/${child.id}`, bob);
      expect(read.body.map((m: { id: string }) => m.id)).to.deep.equal([root.id, child.id]);
      expect((await messageRow(root.id, bob)).read).to.equal(true);
      // Passive subresources never mark a message read.
      expect((await hub.call('GET', `/channels/commons/messages/${child.id}`, cyd, undefined, { 'sec-fetch-dest': 'image' })).status).to.equal(403);
      expect((await messageRow(child.id, cyd)).read).to.equal(false);
    });

    it('inbox lists unread rows from others; ack sets (not maxes) the cursor, clamped to the head', async () => {
      const posted = (await hub.call('POST', '/channels/commons/messages', ada, { body: 'for the inbox' })).body;
      const inbox = (await hub.call('GET', '/inbox', cyd)).body as Array<{ id: string; sender: string }>;
      expect(inbox.map((e) => e.id)).to.include(posted.id);
      expect(inbox.every((e) => e.sender !== 'cyd')).to.equal(true);
      expect((await hub.call('POST', '/inbox/ack', cyd, { channel: 'commons', seq: 1e6 })).body).to.deep.equal({ acked: { commons: posted.seq } });
      expect(((await hub.call('GET', '/inbox', cyd)).body as Array<{ channel: string }>).filter((e) => e.channel === 'commons')).to.have.length(0);
      expect((await hub.call('POST', '/inbox/ack', cyd, { cursors: { commons: posted.seq - 1 } })).body).to.deep.equal({ acked: { commons: posted.seq - 1 } });
      expect(((await hub.call('GET', '/inbox', cyd)).body as Array<{ id: string }>).map((e) => e.id)).to.include(posted.id);
      expect((await hub.call('POST', '/inbox/ack', cyd, { channel: 'build', seq: 1 })).status, 'a private room the seat is not in').to.equal(404);
    });

    it('warns a client that sends no client header with one unsaved notice', async () => {
      await hub.call('POST', '/inbox/ack', cyd, { channel: 'commons', seq: 0 });
      const res = await hub.kernel.inject({ url: '/hub/inbox', token: cyd });
      const rows = JSON.parse(res.body) as Array<{ title: string; sender: string }>;
      expect(rows.at(-1)!.title).to.match(/^HUB NOTICE:/);
      expect(rows.at(-1)!.sender).to.equal('hub');
    });

    it('sorts by votes on request and refuses unknown sorts', async () => {
      const m = (await hub.call('POST', '/channels/commons/messages', ada, { body: 'rate me' })).body;
      expect((await hub.call('PUT', `/channels/commons/messages/${m.id}/rating`, bob, { value: 1 })).status).to.equal(200);
      expect((await hub.call('PUT', `/channels/commons/messages/${m.id}/rating`, ada, { value: 1 })).status).to.equal(400);
      const top = (await hub.call('GET', '/channels/commons/messages?sort=votes', cyd)).body;
      expect(top[0]).to.include({ id: m.id });
      expect(top[0].ratings).to.deep.equal({ up: 1, down: 0, mine: 0 });
      expect((await hub.call('GET', '/channels/commons/messages?sort=nope', cyd)).body.detail).to.equal("sort must be 'recency' or 'votes'");
    });
  });

  describe('retraction and the ledger', () => {
    it('tombstones a message on every read surface; only the author or an operator may', async () => {
      const m = (await hub.call('POST', '/channels/commons/messages', bob, { title: 'oops', body: 'secret', status: 'open', asks: [{ text: 'any?' }] })).body;
      const refused = await hub.call('POST', `/channels/commons/messages/${m.id}/retract`, cyd, {});
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.match(/^only the author \(or an operator\) can retract a message/);
      const done = await hub.call('POST', `/channels/commons/messages/${m.id}/retract`, bob, {});
      expect(done.body).to.include({ retracted: true, title: '', body: '[retracted by bob]', data: null, status: 'fyi' });
      expect((await hub.call('POST', `/channels/commons/messages/${m.id}/retract`, bob, {})).status).to.equal(200);
      const row = await messageRow(m.id, cyd);
      expect(row).to.include({ retracted: true, body: '[retracted by bob]', pending_asks: null, ratings: null, read: null });
      expect((await hub.call('PUT', `/channels/commons/messages/${m.id}/rating`, cyd, { value: 1 })).status).to.equal(409);
    });

    it("retracts a whole thread, or nothing when a non-operator's trail holds another author's message", async () => {
      const root = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'thread root' })).body;
      const mine = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'my reply', reply_to: root.id })).body;
      const theirs = (await hub.call('POST', '/channels/commons/messages', cyd, { body: 'their reply', reply_to: mine.id })).body;
      const refused = await hub.call('POST', `/channels/commons/messages/${root.id}/retract_thread`, bob, {});
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.include('this trail has 1 other author(s) (cyd), so NOTHING was retracted');
      expect((await messageRow(root.id, bob)).retracted).to.equal(false);
      const done = await hub.call('POST', `/channels/commons/messages/${root.id}/retract_thread`, ada, {});
      expect(done.body).to.include({ channel: 'commons', root: root.id, count: 3 });
      expect(done.body.messages.map((m: { id: string }) => m.id)).to.deep.equal([root.id, mine.id, theirs.id]);
    });

    it('serves the whole transcript with the chain head; the client verifies it, retractions included', async () => {
      const ledger = (await hub.call('GET', '/channels/commons/ledger', cyd)).body;
      expect(ledger).to.include({ channel: 'commons', verified: true, broken_at: null });
      expect(ledger.count).to.equal(ledger.turns.length);
      expect(ledger.turns.map((t: { seq: number }) => t.seq)).to.deep.equal(ledger.turns.map((_: unknown, i: number) => i + 1));
      expect(ledger.turns.some((t: { retracted: boolean }) => t.retracted)).to.equal(true);
      expect(ledger.turns[0].critical).to.equal(0);
      const verdict = await verifyLedger(ledger);
      expect(verdict).to.include({ ok: true, broken_at: null, head_mismatch: false, computed_head: ledger.head });
      expect(verdict.redacted).to.be.greaterThan(0);
      // Tampering with a served turn is caught.
      const tampered = structuredClone(ledger);
      const victim = tampered.turns.find((t: { retracted: boolean; kind: string }) => !t.retracted && t.kind === 'message');
      victim.body += '!';
      expect((await verifyLedger(tampered)).broken_at).to.equal(victim.seq);
    });
  });

  async function messageRow(id: string, viewer: string) {
    const all = (await hub.call('GET', '/channels/commons/messages?limit=1000', viewer)).body as Array<Record<string, unknown>>;
    const row = all.find((m) => m.id === id);
    if (!row) throw new Error(`message ${id} not in history`);
    return row;
  }
});
