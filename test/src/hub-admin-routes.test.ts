/**
 * The hub's admin and operator routes (reference §8.2) and the hub charter history (§8.4), through
 * the front door: each route's shape (declared response schemas are checked on every answer), its
 * gate and refusal sentences (§8.0), and the rules the reference states.
 */
import { HubClient } from '@keel/hub-client';
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub admin routes', () => {
  let hub: HubHarness;
  let key: Record<'ann' | 'bob' | 'cat' | 'rex' | 'op', string>;
  let admin: string;

  before(async () => {
    hub = await startHub();
    admin = hub.kernel.adminToken;
    key = await hub.seats(['ann', 'bob', 'cat', 'op'], ['op']) as typeof key;
    key.rex = await hub.seat('rex', { mission: 'weekly fleet report' });
  });
  after(() => hub.stop());

  const ok = async (method: string, url: string, token: string, payload?: unknown) => {
    const res = await hub.call(method, url, token, payload);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  };

  describe('hub charter (admin) and its history', () => {
    it('a fresh hub: /admin/charter is the packaged v0, the history is empty, versions/0 is the packaged text', async () => {
      const c = await ok('GET', '/admin/charter', admin);
      expect(c).to.include({ version: 0, updated_by: '', updated_at: 0, packaged: true });
      expect(c.text).to.include('# Hub charter');
      expect(await ok('GET', '/charter/history', key.ann)).to.deep.equal([]);
      const v0 = await ok('GET', '/charter/versions/0', key.ann);
      expect(v0).to.deep.equal({ version: 0, text: c.text, updated_by: '', updated_at: 0 });
      expect(v0).to.not.have.property('packaged');
    });

    it('PUT refuses an empty text (400) and one over 262144 bytes (413) with the reference sentences', async () => {
      const empty = await hub.call('PUT', '/admin/charter', admin, { text: ' \n\t' });
      expect(empty.status).to.equal(400);
      expect(empty.body).to.deep.equal({ detail: 'hub charter text must be a non-empty string' });
      const big = await hub.call('PUT', '/admin/charter', admin, { text: 'é'.repeat(131073) });
      expect(big.status).to.equal(413);
      expect(big.body).to.deep.equal({ detail: 'hub charter exceeds 262144 bytes' });
      expect((await hub.call('PUT', '/admin/charter', admin, {})).status).to.equal(422);
    });

    it('publishes the next version, says which seat kinds the text leaves out, and makes every reader stale', async () => {
      await ok('GET', '/charter', key.ann);
      expect((await ok('GET', '/whoami', key.ann)).hub_charter.current).to.equal(true);
      const before = (await ok('GET', '/admin/charter', admin)).version;
      // Only members are named; a heading inside a fenced block does not count as a section.
      const text = '# Hub charter\n\n## Members — everyone\nBe kind. Ünïcode counts in characters.\n\n```\n## Operators\n```\n';
      const published = await ok('PUT', '/admin/charter', admin, { text });
      expect(published.version).to.equal(before + 1);
      expect(published.sliceable).to.equal(false);
      expect(published.unsectioned_roles, 'the fenced heading is no section').to.deep.equal(['owner', 'delegate', 'operator']);
      expect(published.missing_roles).to.have.length(2);
      expect(published.missing_roles[0]).to.match(/^owner — /);
      expect(published.missing_roles[1]).to.match(/^delegate — /);
      const who = await ok('GET', '/whoami', key.ann);
      expect(who.hub_charter).to.include({ version: published.version, current: false });
      expect(await ok('GET', '/admin/charter', admin)).to.deep.equal({ version: published.version, text, updated_by: 'operator', updated_at: (await ok('GET', '/admin/charter', admin)).updated_at, packaged: false });

      const tagged = '# Hub\n\n## Every seat\nmember rules\n\n## Room owners [owner]\nx\n\n## Delegates [delegate]\nx\n\n## Operators [operator]\nx\n';
      const second = await ok('PUT', '/admin/charter', admin, { text: tagged });
      expect(second).to.deep.equal({ version: published.version + 1, missing_roles: [], sliceable: true, unsectioned_roles: [] });

      const history = await ok('GET', '/charter/history', key.bob);
      expect(history.map((h: { version: number }) => h.version)).to.deep.equal([second.version, published.version]);
      expect(history[1]).to.include({ updated_by: 'operator', size: [...text].length });
      expect(history[1].size).to.be.below(Buffer.byteLength(text));
      expect(await ok('GET', '/charter/history?limit=1', key.bob)).to.have.length(1);
      expect(await ok('GET', '/charter/history?limit=0', key.bob), 'clamped to 1').to.have.length(1);
      expect(await ok('GET', '/charter/history?limit=9999', key.bob), 'clamped to 500').to.have.length(2);
      expect((await hub.call('GET', '/charter/history?limit=many', key.bob)).status).to.equal(422);

      const archived = await ok('GET', `/charter/versions/${published.version}`, key.bob);
      expect(archived).to.include({ version: published.version, text, updated_by: 'operator' });
      const missing = await hub.call('GET', '/charter/versions/99', key.bob);
      expect(missing.status).to.equal(404);
      expect(missing.body).to.deep.equal({ detail: 'hub charter version 99 is not in the archive (0 = the packaged default)' });
      expect((await hub.call('GET', '/charter/versions/latest', key.bob)).status).to.equal(422);
      // Reading the archive records no receipt.
      expect((await ok('GET', '/whoami', key.bob)).hub_charter.your_receipt).to.equal(null);
    });

    it('history and versions are seat routes: no key 401, the admin key 401', async () => {
      for (const path of ['/charter/history', '/charter/versions/0']) {
        expect((await hub.call('GET', path)).status).to.equal(401);
        const byAdmin = await hub.call('GET', path, admin);
        expect(byAdmin.status).to.equal(401);
        expect(byAdmin.body).to.deep.equal({ detail: 'invalid api key' });
      }
    });

    it('receipts: every reader, newest version first, current when it read the version in force, with its view', async () => {
      await ok('GET', '/charter?full=true', key.cat);
      const receipts = await ok('GET', '/admin/charter/receipts', admin);
      const { version } = await ok('GET', '/admin/charter', admin);
      expect(receipts).to.include({ scope: 'hub', version });
      const cat = receipts.readers.find((r: { agent_id: string }) => r.agent_id === 'cat');
      expect(cat).to.include({ version, current: true, view: 'member+owner+delegate+operator' });
      const ann = receipts.readers.find((r: { agent_id: string }) => r.agent_id === 'ann');
      expect(ann).to.include({ current: false, view: 'member' });
      expect(ann.version).to.be.below(version);
      expect(receipts.readers[0].version).to.equal(version);
      // GET /admin/charter recorded nothing: only seats that read it are listed.
      expect(receipts.readers.map((r: { agent_id: string }) => r.agent_id).sort()).to.deep.equal(['ann', 'cat']);
    });
  });

  describe('hub rules', () => {
    it('version 0 is the packaged text whoami serves; each PUT is the next version, seen at the next whoami', async () => {
      const v0 = await ok('GET', '/admin/rules', admin);
      expect(v0.version).to.equal(0);
      expect((await ok('GET', '/whoami', key.bob)).hub_rules).to.deep.equal(v0);
      const empty = await hub.call('PUT', '/admin/rules', admin, { text: '   ' });
      expect(empty.status).to.equal(400);
      expect(empty.body).to.deep.equal({ detail: 'hub rules text must be a non-empty string' });
      const big = await hub.call('PUT', '/admin/rules', admin, { text: 'x'.repeat(262145) });
      expect(big.status).to.equal(413);
      expect(big.body).to.deep.equal({ detail: 'hub rules exceed 262144 bytes' });
      const set = await ok('PUT', '/admin/rules', admin, { text: 'Answer within the hour.' });
      expect(set).to.deep.equal({ version: 1 });
      expect(await ok('GET', '/admin/rules', admin)).to.deep.equal({ version: 1, text: 'Answer within the hour.' });
      expect((await ok('GET', '/whoami', key.bob)).hub_rules).to.deep.equal({ version: 1, text: 'Answer within the hour.' });
    });
  });

  describe('delegations and noise', () => {
    it('GET /admin/delegations is the live grant list of GET /delegations', async () => {
      await ok('PUT', '/admin/delegation', admin, { agent_id: 'rex', powers: ['reporting'], ttl_seconds: 3600, note: 'weekly report' });
      const list = await ok('GET', '/admin/delegations', key.op);
      expect(list).to.deep.equal(await ok('GET', '/delegations', key.ann));
      expect(list.map((d: { agent_id: string }) => d.agent_id)).to.deep.equal(['rex']);
    });

    it('counts open questions and the seats they wake, old rule against addressed rule, per non-DM room', async () => {
      await hub.room('noisy', key.ann, [key.bob, key.cat]);
      const root = await ok('POST', '/channels/noisy/messages', key.ann, { title: 'anyone?', body: 'who knows', status: 'open' });
      await ok('POST', '/channels/noisy/messages', key.ann, { title: 'bob?', body: 'you know', status: 'open', asks: [{ id: 'q1', text: 'well?', to: ['bob'] }] });
      await ok('POST', '/channels/noisy/messages', key.bob, { body: 'I do', status: 'reply', reply_to: root.id });
      await ok('POST', '/dms/cat/messages', key.ann, { body: 'not counted', status: 'open' });
      const report = await ok('GET', '/admin/noise', admin);
      expect(report.hours).to.equal(24);
      expect(report.channels.map((c: { channel: string }) => c.channel)).to.not.include('dm:ann--cat');
      expect(report.channels.find((c: { channel: string }) => c.channel === 'noisy')).to.deep.equal({
        channel: 'noisy', members: 3, messages: 3, broadcast_opens: 1, addressed_opens: 1,
        wakes_old_rule: 4, wakes_new_rule: 3, multi_speaker_threads: 1, avg_speakers_per_thread: 1.5,
      });
      const names = report.channels.map((c: { channel: string }) => c.channel);
      expect(names).to.deep.equal([...names].sort());
      expect((await ok('GET', '/admin/noise?hours=0', key.op)).hours, 'clamped to 1').to.equal(1);
      expect((await ok('GET', '/admin/noise?hours=5000', key.op)).hours, 'clamped to 336').to.equal(336);
      expect((await hub.call('GET', '/admin/noise?hours=lots', key.op)).status).to.equal(422);
    });
  });

  describe('status', () => {
    it('/status: no key 401, the admin key 401, a plain seat 403; operators see refusals, reporting delegates do not', async () => {
      expect((await hub.call('GET', '/status')).status).to.equal(401);
      const byAdmin = await hub.call('GET', '/status', admin);
      expect(byAdmin.status).to.equal(401);
      expect(byAdmin.body).to.deep.equal({ detail: 'invalid api key' });
      const plain = await hub.call('GET', '/status', key.ann);
      expect(plain.status).to.equal(403);
      expect(plain.body).to.deep.equal({ detail: 'fleet status is for operators and reporting delegates (whoami.delegations is the proof)' });
      const byOp = await ok('GET', '/status', key.op);
      expect(byOp.agents.every((a: object) => 'last_refusal' in a)).to.equal(true);
      const byDelegate = await ok('GET', '/status', key.rex);
      expect(byDelegate.agents).to.have.length(byOp.agents.length);
      expect(byDelegate.agents.some((a: object) => 'last_refusal' in a)).to.equal(false);
    });

    it('per seat: inbox, obligations, owed answers and refused posts; a row per live seat and the fleet snapshot', async () => {
      await hub.room('asks', key.cat, [key.bob]);
      await ok('POST', '/channels/asks/messages', key.cat, { title: 'q', body: 'help', status: 'open', asks: [{ id: 's1', text: 'can you?', to: ['bob'] }] });
      const refused = await hub.call('POST', '/channels/no-such-room/messages', key.bob, { body: 'hello?' });
      expect(refused.status).to.equal(404);
      const status = await ok('GET', '/admin/status', admin);
      expect(status.agents.map((a: { agent_id: string }) => a.agent_id).sort()).to.deep.equal(['ann', 'bob', 'cat', 'op', 'rex']);
      const bob = status.agents.find((a: { agent_id: string }) => a.agent_id === 'bob');
      // bob owes the ask here and the one in 'noisy' (the noise test).
      expect(bob).to.include({ owed_answers: 2, escalated_owed: 0, acked_unanswered: 0, silence_class: null, refused_sends_1h: 1, reception: 'unknown', deaf: false });
      expect(bob.unread).to.be.at.least(1);
      expect(bob.pending_obligations).to.be.at.least(1);
      expect(bob.oldest_pending_minutes).to.be.a('number');
      expect(bob.last_refusal).to.include({ channel: 'no-such-room', code: 404, detail: "channel 'no-such-room' not found" });
      // A refusal is kept only for the seat that was refused.
      expect(status.agents.find((a: { agent_id: string }) => a.agent_id === 'cat')).to.include({ refused_sends_1h: 0, last_refusal: null });
      expect(status.fleet).to.include({ min_eligible: 3 });
      expect(status.fleet.live).to.be.at.most(status.fleet.eligible);
    });

    it("reception: a seat's GET /owed with X-Agora-Reception arms it; a seat that never polled stays unknown", async () => {
      expect((await hub.call('GET', '/owed', key.cat, undefined, { 'x-agora-reception': '1' })).status).to.equal(200);
      const status = await ok('GET', '/admin/status', admin);
      const row = (id: string) => status.agents.find((a: { agent_id: string }) => a.agent_id === id);
      expect(row('cat')).to.include({ reception: 'armed' });
      expect(row('ann')).to.include({ reception: 'unknown' });
    });
  });

  describe('doctor', () => {
    it("reports operators' open questions with who owes them, each seat's work, debts and blockers, never a body", async () => {
      await hub.room('ward', key.op, [key.bob]);
      const q = await ok('POST', '/channels/ward/messages', key.op, { title: 'status of the migration', body: 'SECRET-BODY-TEXT', status: 'open', asks: [{ id: 'm1', text: 'done?', to: ['bob'] }] });
      await ok('PUT', '/channels/ward/store/claim%3Amigration', key.bob, { value: { owner: 'bob', status: 'parked', next_step: `waiting on ${q.id}` } });
      const report = await ok('GET', '/admin/doctor', admin);
      expect(report).to.include({ scope: 'all seats', lookback_seconds: 86400 });
      expect(JSON.stringify(report)).to.not.include('SECRET-BODY-TEXT');
      expect(report.hub).to.include({ paused: null, live_claims: 1, stale_claims: 0 });
      expect(report.hub_cannot_see).to.have.length(4);
      const request = report.requests.find((r: { id: string }) => r.id === q.id);
      expect(request).to.include({ channel: 'ward', from: 'op', title: 'status of the migration', pending_asks: 1, ask_progress: '0/1' });
      expect(request.owed_by).to.deep.equal(['bob']);
      expect(request.owned_by).to.deep.equal(['bob']);
      expect(request.claims).to.have.length(1);
      expect(request.outstanding_asks).to.deep.equal([{ asker: 'op', where: `ward#${q.seq}`, ask: 'm1', waiting_on: 'bob', state: 'not-yet-served', age_seconds: request.age_seconds }]);
      const bob = report.seats.find((r: { agent_id: string }) => r.agent_id === 'bob');
      expect(bob.did_work.worked_within_lookback).to.equal(true);
      expect(bob.did_work.last_write_seconds).to.be.a('number');
      expect(bob.working_on.map((w: { key: string }) => w.key)).to.deep.equal(['claim:migration']);
      expect(bob.held_up_by.map((h: { kind: string }) => h.kind)).to.include.members(['claim-parked', 'send-refused']);
      expect(bob.owes.to_answer).to.be.at.least(1);
      expect(report.seats.find((r: { agent_id: string }) => r.agent_id === 'rex').delegate_powers).to.deep.equal(['reporting']);

      await ok('POST', '/inbox/ack', key.bob, { cursors: { ward: q.seq } });
      const narrowed = await ok('GET', '/admin/doctor?agent=bob', admin);
      expect(narrowed.scope).to.equal('bob');
      expect(narrowed.seats.map((r: { agent_id: string }) => r.agent_id)).to.deep.equal(['bob']);
      expect(narrowed.requests.find((r: { id: string }) => r.id === q.id).outstanding_asks[0].state).to.equal('acked-past-no-reply');
      // No existence check (as the reference): an unknown id is a seat with empty ledgers.
      const ghost = await ok('GET', '/admin/doctor?agent=ghost', admin);
      expect(ghost.seats).to.have.length(1);
      expect(ghost.seats[0]).to.include({ agent_id: 'ghost', silence_class: null });
      expect(ghost.seats[0].did_work.worked_within_lookback).to.equal(false);
    });
  });

  describe('gates (§8.0)', () => {
    const adminOnly: Array<[string, string, string, unknown?]> = [
      ['GET', '/admin/charter', 'reading the hub charter via admin requires the admin key'],
      ['PUT', '/admin/charter', 'setting the hub charter requires the admin key', { text: '# Hub charter\n' }],
      ['GET', '/admin/charter/receipts', 'hub charter receipts require the admin key'],
      ['GET', '/admin/rules', 'reading hub rules via admin requires the admin key'],
      ['PUT', '/admin/rules', 'setting hub rules requires the admin key', { text: 'be brief' }],
      ['GET', '/admin/status', 'status overview requires the admin key'],
      ['GET', '/admin/doctor', 'doctor requires the admin key'],
    ];
    for (const [method, path, sentence, body] of adminOnly) {
      it(`${method} ${path}: no key 401, any seat key (an operator's too) 403, the admin key allowed`, async () => {
        const none = await hub.call(method, path, undefined, body);
        expect(none.status).to.equal(401);
        expect(none.body).to.deep.equal({ detail: 'missing bearer token' });
        for (const seat of [key.ann, key.op, 'agora_not-a-key']) {
          const refused = await hub.call(method, path, seat, body);
          expect(refused.status).to.equal(403);
          expect(refused.body).to.deep.equal({ detail: sentence });
        }
        expect((await hub.call(method, path, admin, body)).status).to.equal(200);
      });
    }

    it('GET /admin/slow refuses a missing key with 403 too (the reference mounts it on the app)', async () => {
      for (const token of [undefined, key.op, key.ann]) {
        const refused = await hub.call('GET', '/admin/slow', token);
        expect(refused.status).to.equal(403);
        expect(refused.body).to.deep.equal({ detail: 'the slow-request ring requires the admin key' });
      }
      expect((await hub.call('GET', '/admin/slow', admin)).status).to.equal(200);
    });

    it('takes the admin key only as a bearer credential: the raw header value is refused', async () => {
      const raw = { authorization: admin };
      expect((await hub.kernel.inject({ method: 'GET', url: '/hub/admin/slow', headers: raw })).statusCode).to.equal(403);
      const charter = await hub.kernel.inject({ method: 'GET', url: '/hub/admin/charter', headers: raw });
      expect(charter.statusCode).to.equal(401);
      expect(JSON.parse(charter.body)).to.deep.equal({ detail: 'missing bearer token' });
    });

    const operatorOrAdmin: Array<[string, string]> = [
      ['/admin/delegations', 'listing delegations here is an operator view'],
      ['/admin/noise', 'the noise report is an operator instrument'],
    ];
    for (const [path, sentence] of operatorOrAdmin) {
      it(`GET ${path}: no key or a bad key 401, a plain seat 403, an operator or the admin key allowed`, async () => {
        expect((await hub.call('GET', path)).body).to.deep.equal({ detail: 'missing bearer token' });
        const bad = await hub.call('GET', path, 'agora_not-a-key');
        expect(bad.status).to.equal(401);
        expect(bad.body).to.deep.equal({ detail: 'invalid api key' });
        const plain = await hub.call('GET', path, key.ann);
        expect(plain.status).to.equal(403);
        expect(plain.body).to.deep.equal({ detail: sentence });
        expect((await hub.call('GET', path, key.op)).status).to.equal(200);
        expect((await hub.call('GET', path, admin)).status).to.equal(200);
      });
    }
  });
});

describe('hub admin routes: @keel/hub-client', () => {
  it('reads the charter history, an archived version, the fleet status, the delegations and the noise report', async () => {
    const hub = await startHub();
    try {
      const op = await hub.seat('op', { operator: true });
      expect((await hub.call('PUT', '/admin/charter', hub.kernel.adminToken, { text: '# Hub\n\nBe kind.\n' })).status).to.equal(200);
      const { url } = await hub.kernel.listen();
      const client = new HubClient({ base_url: `${url}/hub`, bearer_token: op });
      expect((await client.charter_history(10)).map((h) => h.version)).to.deep.equal([1]);
      expect(await client.charter_version(1)).to.include({ version: 1, text: '# Hub\n\nBe kind.\n', updated_by: 'operator' });
      expect((await client.fleet_status()).agents.map((a) => a.agent_id)).to.deep.equal(['op']);
      expect(await client.admin_delegations()).to.deep.equal([]);
      expect((await client.noise_report(2)).hours).to.equal(2);
      const err = await client.charter_version(7).then(() => null, (e: unknown) => e as { status: number; message: string });
      expect(err?.status).to.equal(404);
      expect(err?.message).to.include('hub charter version 7 is not in the archive');
    } finally {
      await hub.stop();
    }
  });
});

describe('hub admin routes: the slow-request ring', () => {
  it('keeps only the last `keep` requests that took at least `thresholdMs`, oldest first', async () => {
    const hub = await startHub({ slowRequests: { thresholdMs: 0, keep: 3 } });
    try {
      const ann = await hub.seat('ann');
      for (let i = 0; i < 5; i++) await hub.call('GET', '/whoami', ann);
      const ring = (await hub.call('GET', '/admin/slow', hub.kernel.adminToken)).body;
      expect(ring).to.have.length(3);
      for (const row of ring) {
        expect(Object.keys(row).sort()).to.deep.equal(['at', 'method', 'path', 'seconds']);
        expect(row.seconds).to.be.at.least(0);
      }
      expect(ring.map((r: { at: number }) => r.at)).to.deep.equal(ring.map((r: { at: number }) => r.at).sort((a: number, b: number) => a - b));
      expect(ring.map((r: { path: string }) => r.path)).to.deep.equal(['/hub/whoami', '/hub/whoami', '/hub/whoami']);
    } finally {
      await hub.stop();
    }
  });

  it('by default (5 s) ordinary requests are not slow: the ring stays empty', async () => {
    const hub = await startHub();
    try {
      const ann = await hub.seat('ann');
      await hub.call('GET', '/whoami', ann);
      expect((await hub.call('GET', '/admin/slow', hub.kernel.adminToken)).body).to.deep.equal([]);
    } finally {
      await hub.stop();
    }
  });
});
