import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { SocketClient } from './helpers/socket-client.js';
import { until } from './helpers/until.js';

/** Reference §8.3: GET /board, GET /supervise and /channels/{c}/supervise, GET /stats/activity. */
describe('hub-wide seat reads (reference §8.3)', () => {
  let hub: HubHarness;
  let key: Record<'ann' | 'bob' | 'carol' | 'op' | 'rex' | 'vic' | 'zed', string>;
  const enc = encodeURIComponent;

  before(async () => {
    hub = await startHub({ postRate: { perMinute: 0 } });
    key = await hub.seats(['ann', 'bob', 'carol', 'op', 'zed'] as const, ['op']) as typeof key;
    key.rex = await hub.seat('rex', { mission: 'unstick the proj room' });
    key.vic = await hub.seat('vic', { mission: 'watch the side room' });
    await hub.room('proj', key.ann, [key.bob, key.carol, key.rex]);
    await hub.room('hush', key.ann, [], true);
    const inv = await hub.call('POST', '/channels/hush/invites', key.ann, { agent_id: 'carol' });
    expect((await hub.call('POST', '/channels/hush/join', key.carol, { invite_token: inv.body.invite_token })).status).to.equal(200);
  });
  after(() => hub.stop());

  const post = async (channel: string, token: string, body: Record<string, unknown>) => {
    const res = await hub.call('POST', `/channels/${enc(channel)}/messages`, token, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; seq: number };
  };
  const put = async (channel: string, k: string, token: string, value: unknown) => {
    const res = await hub.call('PUT', `/channels/${channel}/store/${enc(k)}`, token, { value });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  describe('GET /board', () => {
    let asked: { id: string; seq: number };
    let broadcast: { id: string; seq: number };
    let toCarol: { id: string; seq: number };
    let dm: { id: string };
    let hidden: { id: string };

    before(async () => {
      asked = await post('proj', key.ann, { title: 'Which database?', body: 'long text', status: 'open', to: ['bob'], asks: [{ id: 'db', text: 'pick one' }] });
      broadcast = await post('proj', key.ann, { body: `${'y'.repeat(130)}`, status: 'open' });
      toCarol = await post('proj', key.ann, { body: 'carol only', status: 'blocked', to: ['carol'] });
      dm = (await hub.call('POST', '/dms/bob/messages', key.ann, { body: 'a word in private' })).body;
      hidden = await post('hush', key.ann, { body: 'hush proposal', status: 'open' });
      await put('proj', 'queue:bob:1', key.ann, { item: 'approve the plan' });
      await put('proj', 'queue:bob:2', key.ann, { item: 'already done', decided: true });
      await put('proj', 'claim:ship', key.bob, { status: 'in progress' });
      await put('proj', 'claim:audit', key.bob, { status: 'Done — ready', review: 'operator' });
      await put('proj', 'claim:legacy', key.bob, { done: true, review: 'delegate' });
      await put('proj', 'decision:legacy', key.ann, { text: 'accepted' });
    });

    it("shows bob what waits on him, the open proposals, his queue, claims and decisions — nothing of rooms he is not in", async () => {
      const res = await hub.call('GET', '/board', key.bob);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const b = res.body;
      expect(b.viewer).to.equal('bob');
      expect(b.pending_on_me.map((r: { id: string }) => r.id).sort()).to.deep.equal([asked.id, dm.id].sort());
      const row = b.pending_on_me.find((r: { id: string }) => r.id === asked.id);
      expect(row).to.include({ channel: 'proj', seq: asked.seq, sender: 'ann', q: 'Which database?', escalated: false, age_minutes: 0 });
      expect(row.pending_asks).to.deep.equal(['db']);
      expect(row.since).to.be.a('number');
      expect(b.proposals.map((r: { id: string }) => r.id)).to.deep.equal([broadcast.id]);
      expect(b.proposals[0].q).to.equal(`${'y'.repeat(120)}…`);
      expect(JSON.stringify(b)).to.not.include(toCarol.id);
      expect(JSON.stringify(b)).to.not.include(hidden.id);
      expect(JSON.stringify(b)).to.not.include('hush');
      expect(b.queue).to.deep.equal([{ channel: 'proj', key: 'queue:bob:1', item: 'approve the plan', updated_by: 'ann' }]);
      expect(b.in_progress.map((c: { task: string; owner: string }) => [c.task, c.owner])).to.deep.equal([['ship', 'bob']]);
      expect(b.pending_review.map((c: { task: string; review: string }) => [c.task, c.review])).to.deep.equal([['audit', 'operator']]);
      expect(b.done.map((d: { key: string }) => d.key)).to.deep.equal(['decision:legacy']);
      expect(b.counts).to.deep.equal({ pending_on_me: 2, queue: 1, proposals: 1, in_progress: 1, pending_review: 1, done_shown: 1, done_total: 1 });
    });

    it("carol sees the row addressed to her and the private room's proposal; the asker never sees her own rows", async () => {
      const carol = (await hub.call('GET', '/board', key.carol)).body;
      expect(carol.pending_on_me.map((r: { id: string }) => r.id)).to.deep.equal([toCarol.id]);
      expect(carol.proposals.map((r: { id: string }) => r.id)).to.deep.equal([broadcast.id, hidden.id]);
      const ann = (await hub.call('GET', '/board', key.ann)).body;
      expect(ann.pending_on_me).to.deep.equal([]);
      expect(ann.proposals).to.deep.equal([]);
    });

    it('drops a row once its asks are answered (the thread is closed)', async () => {
      await post('proj', key.bob, { status: 'reply', reply_to: asked.id, body: 'postgres', answers: ['db'] });
      const b = (await hub.call('GET', '/board', key.bob)).body;
      expect(b.pending_on_me.map((r: { id: string }) => r.id)).to.deep.equal([dm.id]);
    });

    it('takes a seat key: the admin key and no key are 401', async () => {
      expect((await hub.call('GET', '/board', hub.kernel.adminToken)).status).to.equal(401);
      expect((await hub.call('GET', '/board')).status).to.equal(401);
    });
  });

  describe('supervise', () => {
    before(async () => {
      expect((await hub.call('PUT', '/admin/delegation', hub.kernel.adminToken, { agent_id: 'rex', powers: ['operational'], scope: 'proj' })).status).to.equal(200);
      expect((await hub.call('PUT', '/admin/delegation', hub.kernel.adminToken, { agent_id: 'vic', powers: ['ruling'], scope: 'hush' })).status).to.equal(200);
      await put('proj', 'claim:wait', key.carol, { status: 'parked on review', blocked_on: 'seat', needs: 'a review', needs_from: 'bob' });
      await put('proj', 'claim:stuck', key.bob, { status: 'blocked', owner: 'carol', blocked_on: 'operator', needs: 'a budget' });
      await put('proj', 'phase:build', key.ann, { current: 'build', next: 'ship', steward: 'ann' });
    });

    it("GET /channels/{c}/supervise: the delegate's view — seats, parked claims and what it can end", async () => {
      const res = await hub.call('GET', '/channels/proj/supervise', key.rex);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const r = res.body;
      expect(r).to.include({ channel: 'proj' });
      expect(r.your_powers).to.deep.equal(['operational']);
      expect(r.open_phases).to.deep.equal([{ key: 'phase:build', current: 'build', next: 'ship', steward: 'ann' }]);
      expect(r.seats.map((s: { seat: string }) => s.seat)).to.deep.equal(['ann', 'bob', 'carol']);
      const bob = r.seats.find((s: { seat: string }) => s.seat === 'bob');
      // Recent seat-key calls read as `active` (presence, reference §8.1 B3): bob is live, and holds a claim.
      expect(bob).to.include({ live: true, holds_nothing: false, reception: 'active' });
      expect(bob.working_on).to.deep.equal(['claim:ship']);
      expect(bob.quiet_minutes).to.equal(0);
      const carol = r.seats.find((s: { seat: string }) => s.seat === 'carol');
      expect(carol.parked.sort()).to.deep.equal(['claim:stuck', 'claim:wait']);
      expect(r.blocked.map((b: { key: string; blocked_on: string; you_can_act: boolean }) => [b.key, b.blocked_on, b.you_can_act]).sort()).to.deep.equal([
        ['claim:stuck', 'operator', false], ['claim:wait', 'seat', true],
      ]);
      expect(r.blocked.find((b: { key: string }) => b.key === 'claim:wait')).to.include({ owner: 'carol', needs: 'a review', needs_from: 'bob' });
      expect(r.needs_the_operator).to.deep.equal(['claim:stuck']);
      // ann's recent calls make her live too, and she holds no claim.
      expect(r.idle_but_live).to.deep.equal(['ann']);
      expect(r.summary).to.equal('3 seat(s); 1 live and holding nothing; 2 blocked, 1 you can end yourself');
    });

    it('a seat holding a live socket and no claim is idle_but_live', async () => {
      const base = (await hub.kernel.listen()).url.replace(/^http/, 'ws');
      const socket = await SocketClient.open(`${base}/hub/ws?token=${key.ann}`);
      try {
        const view = async () => (await hub.call('GET', '/channels/proj/supervise', key.rex)).body;
        await until(async () => (await view()).idle_but_live.includes('ann'), { what: 'ann live and holding nothing' });
        const r = await view();
        expect(r.seats.find((s: { seat: string }) => s.seat === 'ann')).to.include({ live: true, holds_nothing: true });
        expect(r.idle_but_live).to.deep.equal(['ann']);
        expect(r.summary).to.equal('3 seat(s); 1 live and holding nothing; 2 blocked, 1 you can end yourself');
      } finally {
        socket.ws.terminate();
      }
    });

    it('GET /supervise: every room a grant reaches', async () => {
      const res = await hub.call('GET', '/supervise', key.rex);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(Object.keys(res.body.rooms)).to.deep.equal(['proj']);
      expect(res.body.needs_the_operator).to.deep.equal(['proj/claim:stuck']);
      expect(res.body.blocked.every((b: { channel: string }) => b.channel === 'proj')).to.equal(true);
      expect(res.body.summary).to.equal('1 room(s); 1 seat(s) live and holding nothing; 2 blocked');
    });

    it('refuses a seat without a grant (even an operator, even before the membership gate) with the delegate sentence', async () => {
      const plain = await hub.call('GET', '/channels/proj/supervise', key.bob);
      expect(plain.status).to.equal(403);
      expect(plain.body.detail).to.equal("supervise() is the delegate's view: it reports what YOU can do about a stalled room, and that answer is meaningless without a delegation. Ask the operator.");
      expect((await hub.call('GET', '/channels/proj/supervise', key.op)).status).to.equal(403);
      expect((await hub.call('GET', '/channels/nowhere/supervise', key.bob)).body.detail).to.equal(plain.body.detail);
      const all = await hub.call('GET', '/supervise', key.op);
      expect(all.status).to.equal(403);
    });

    it("a grant does not open a room the delegate is not in: a private room stays a 404, and /supervise reaches no room", async () => {
      const res = await hub.call('GET', '/channels/hush/supervise', key.vic);
      expect(res.status).to.equal(404);
      expect(res.body.detail).to.equal("channel 'hush' not found");
      const all = await hub.call('GET', '/supervise', key.vic);
      expect(all.status).to.equal(403);
      expect(all.body.detail).to.equal("supervise() is the delegate's view: no delegation of yours reaches any room you are in. Ask the operator.");
      // A grant scoped to proj does not reach another room rex is in.
      expect((await hub.call('GET', '/channels/commons/supervise', key.rex)).status).to.equal(403);
    });
  });

  describe('GET /stats/activity', () => {
    it('counts every row in wall-clock slots, split public/dm, and names only the seats the caller may see', async () => {
      expect((await hub.call('POST', '/channels/commons/leave', key.zed, {})).status).to.equal(200);
      await hub.room('zed-only', key.zed, [], true);
      await post('zed-only', key.zed, { body: 'talking to myself' });
      const res = await hub.call('GET', '/stats/activity', key.bob);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const s = res.body;
      expect(s.windows).to.deep.equal({ per_minute_slots: 10, bucket_seconds: 600, bucket_slots: 6 });
      expect(s.per_minute).to.have.length(10);
      expect(s.per_bucket).to.have.length(6);
      expect(s.per_minute[9].start).to.equal(Math.floor(s.now / 60) * 60);
      expect(s.per_bucket[5].start).to.equal(Math.floor(s.now / 600) * 600);
      expect(s.per_minute[0].label).to.match(/^\d\d:\d\d$/);
      const sum = (slots: Array<{ total: number; dm: number; public: number }>) => slots.reduce((n, x) => n + x.total, 0);
      expect(sum(s.per_bucket)).to.be.at.least(s.totals.last_10m.total);
      expect(s.totals.last_10m.dm).to.be.at.least(1);
      expect(s.totals.last_10m.total).to.equal(s.totals.last_10m.dm + s.totals.last_10m.public);
      expect(s.rate_per_minute.last_10m).to.equal(Math.round((s.totals.last_10m.total / 10) * 100) / 100);
      expect(s.active_seats).to.include.members(['ann', 'bob', 'hub']);
      expect(s.active_seats).to.not.include('zed');
      expect(s.active_seat_count).to.be.greaterThan(s.active_seats.length);
      expect(s.last_message_at).to.be.a('number');
      expect(s.quiet_for_seconds).to.be.at.least(0);
      expect(s.verdict).to.match(/^active — \d+ messages in the last 10 minutes \(\d+\.\d\/min\)$/);
      const op = (await hub.call('GET', '/stats/activity', key.op)).body;
      expect(op.active_seats).to.include('zed');
    });

    it('takes a seat key: the admin key is 401', async () => {
      const res = await hub.call('GET', '/stats/activity', hub.kernel.adminToken);
      expect([res.status, res.body.detail]).to.deep.equal([401, 'invalid api key']);
    });
  });
});
