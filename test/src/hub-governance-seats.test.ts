/**
 * Hub governance of seats, through HTTP: missions, the operator role, retirement and restoration,
 * hard delete (ids never reused), delegations, presence and join tokens.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { until } from './helpers/gateway-runs.js';
import { SocketClient } from './helpers/socket-client.js';

const DAY = 86400;
const RETIRED = (reason: string) => `this identity has been retired (${reason}) — a decommissioned seat, not a block. An operator can restore it; the id is never reused.`;

describe('hub seats: missions and roles', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'op'], ['op']);
  });
  after(() => h.stop());

  it('an operator (or the admin key) sets a mission; the seat reads it on /whoami but cannot set its own', async () => {
    const set = await h.call('PUT', '/admin/agents/alice/mission', key.op, { mission: 'triage\tthe\u0007 inbox\nand report' });
    expect(set.status).to.equal(200);
    expect(set.body).to.deep.equal({ agent_id: 'alice', mission: 'triage\tthe inbox\nand report' });
    expect((await h.call('GET', '/whoami', key.alice)).body.mission).to.equal('triage\tthe inbox\nand report');
    const byAdmin = await h.call('PUT', '/admin/agents/bob/mission', h.kernel.adminToken, { mission: 'review' });
    expect(byAdmin.status).to.equal(200);

    const self = await h.call('PUT', '/admin/agents/alice/mission', key.alice, { mission: 'nap' });
    expect([self.status, self.body.detail]).to.deep.equal([403, 'setting a mission is an operator act']);
    const opSelf = await h.call('PUT', '/admin/agents/op/mission', key.op, { mission: 'rule' });
    expect(opSelf.status, 'not even an operator writes its own').to.equal(403);
    expect((await h.call('PUT', '/admin/agents/alice/mission', key.op, { mission: '  ' })).status).to.equal(400);
    const long = await h.call('PUT', '/admin/agents/alice/mission', key.op, { mission: 'x'.repeat(4001) });
    expect(long.status).to.equal(400);
    expect(long.body.detail).to.match(/^mission is 4001 characters; the cap is 4000\./);
    expect((await h.call('PUT', '/admin/agents/alice/mission', key.op, { mission: 'x'.repeat(4000) })).status).to.equal(200);
    expect((await h.call('PUT', '/admin/agents/ghost/mission', key.op, { mission: 'x' })).status).to.equal(404);
  });

  it('GET /admin/missions lists every active seat with its mission, blanks included (operators only)', async () => {
    await h.call('PUT', '/admin/agents/alice/mission', key.op, { mission: 'triage' });
    const res = await h.call('GET', '/admin/missions', h.kernel.adminToken);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([{ agent_id: 'alice', mission: 'triage' }, { agent_id: 'bob', mission: 'review' }, { agent_id: 'op', mission: '' }]);
    const denied = await h.call('GET', '/admin/missions', key.bob);
    expect([denied.status, denied.body.detail]).to.deep.equal([403, 'reading missions is an operator view']);
  });

  it('PUT /agents/{id}/role promotes and demotes; the last operator cannot step down', async () => {
    const up = await h.call('PUT', '/agents/bob/role', h.kernel.adminToken, { operator: true });
    expect(up.body).to.deep.equal({ agent: 'bob', operator: true, changed: true, by: 'operator' });
    expect((await h.call('GET', '/whoami', key.bob)).body.operator).to.equal(true);
    expect((await h.call('PUT', '/agents/bob/role', key.op, { operator: true })).body.changed).to.equal(false);
    const down = await h.call('PUT', '/agents/bob/role', key.op, { operator: false });
    expect(down.body).to.deep.equal({ agent: 'bob', operator: false, changed: true, by: 'op' });
    const last = await h.call('PUT', '/agents/op/role', key.op, { operator: false });
    expect(last.status).to.equal(409);
    expect(last.body.detail).to.match(/^'op' is the last operator/);
    const denied = await h.call('PUT', '/agents/alice/role', key.bob, { operator: true });
    expect(denied.status).to.equal(403);
    expect((await h.call('PUT', '/agents/ghost/role', key.op, { operator: true })).status).to.equal(404);
  });
});

describe('hub seats: retire, restore, delete', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'carol', 'dan', 'op'], ['op']);
    await h.room('team', key.alice, [key.bob]);
    await h.call('POST', '/dms/bob/messages', key.alice, { body: 'hello bob' });
  });
  after(() => h.stop());

  it('retiring evicts the seat from every room, refuses its key with the retirement sentence, and closes DMs to it', async () => {
    const res = await h.call('POST', '/agents/bob/retire', key.op, { reason: 'project over' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ agent: 'bob', retired: true, reason: 'project over', evicted_from: ['commons', 'team'] });
    const whoami = await h.call('GET', '/whoami', key.bob);
    expect([whoami.status, whoami.body.detail]).to.deep.equal([403, RETIRED('project over')]);
    expect((await h.call('GET', '/channels', key.bob)).status).to.equal(403);
    const members = await h.call('GET', '/channels/team/members', key.alice);
    expect(members.body.map((m: { agent_id: string }) => m.agent_id)).to.deep.equal(['alice']);

    const dm = await h.call('POST', '/dms/bob/messages', key.alice, { body: 'still there?' });
    expect(dm.status).to.equal(404);
    const viaChannel = await h.call('POST', `/channels/${encodeURIComponent('dm:alice--bob')}/messages`, key.alice, { body: 'still there?' });
    expect(viaChannel.status).to.equal(409);
    expect(viaChannel.body.detail).to.match(/^'bob' has been retired \(decommissioned\) — this direct channel is closed/);
    const reRegister = await h.call('POST', '/agents', h.kernel.adminToken, { id: 'bob' });
    expect(reRegister.status).to.equal(409);
  });

  it('refuses to retire an operator, and non-operators cannot retire', async () => {
    const op = await h.call('POST', '/agents/op/retire', h.kernel.adminToken, {});
    expect([op.status, op.body.detail]).to.deep.equal([403, 'operators cannot be retired (lifecycle safety)']);
    const seat = await h.call('POST', '/agents/carol/retire', key.alice, {});
    expect([seat.status, seat.body.detail]).to.deep.equal([403, 'retiring an identity is an operator act']);
    expect((await h.call('POST', '/agents/ghost/retire', key.op)).status).to.equal(404);
  });

  it('GET /agents/retired lists retired seats newest first; restoring gives the key back but not the memberships', async () => {
    await h.call('POST', '/agents/dan/retire', key.op);
    const list = await h.call('GET', '/agents/retired', key.op);
    expect(list.body.map((r: { id: string; reason: string }) => [r.id, r.reason])).to.deep.equal([['dan', ''], ['bob', 'project over']]);
    expect(list.body[0]).to.have.keys(['id', 'reason', 'retired_at']);
    expect((await h.call('GET', '/agents/retired', key.alice)).body.detail).to.equal('listing retired agents is an operator view');
    expect((await h.call('GET', '/admin/missions', key.op)).body.map((m: { agent_id: string }) => m.agent_id)).to.not.include('bob');

    const restored = await h.call('DELETE', '/agents/bob/retire', key.op);
    expect(restored.body).to.deep.equal({ agent: 'bob', retired: false });
    expect((await h.call('GET', '/whoami', key.bob)).status).to.equal(200);
    const rows = await h.call('GET', '/channels', key.bob);
    expect(rows.body.filter((c: { member: boolean }) => c.member).map((c: { name: string }) => c.name)).to.deep.equal([`dm:alice--bob`]);
    expect((await h.call('DELETE', '/agents/bob/retire', key.op)).body).to.deep.equal({ agent: 'bob', retired: false, already_active: true });
  });

  it('a hard delete needs a retired seat (409 while active), purges it from rosters and boards; the id is reserved forever', async () => {
    await h.call('POST', '/channels/team/join', key.carol, {});
    const said = await h.call('POST', '/channels/team/messages', key.alice, { body: 'thumbs please' });
    await h.call('PUT', `/channels/team/messages/${said.body.id}/rating`, key.carol, { value: 1 });
    const active = await h.call('DELETE', '/agents/carol', key.op);
    expect(active.status).to.equal(409);
    expect(active.body.detail).to.match(/^'carol' is still active — retire it first; /);
    await h.call('POST', '/dms/carol/messages', key.alice, { body: 'bye' });
    await h.call('POST', '/agents/carol/retire', key.op);
    const deleted = await h.call('DELETE', '/agents/carol', h.kernel.adminToken);
    expect(deleted.body).to.deep.equal({ agent: 'carol', deleted: true });
    expect((await h.call('DELETE', '/agents/carol', key.op)).body).to.deep.equal({ agent: 'carol', deleted: true, already: true });

    const rows = await h.call('GET', '/channels/team/messages', key.alice);
    expect(rows.body.find((m: { id: string }) => m.id === said.body.id).ratings).to.deep.include({ up: 0 });
    const dmMembers = await h.call('GET', `/channels/${encodeURIComponent('dm:alice--carol')}/members`, key.alice);
    expect(dmMembers.body.map((m: { agent_id: string }) => m.agent_id)).to.deep.equal(['alice']);
    expect((await h.call('GET', '/agents/retired', key.op)).body.map((r: { id: string }) => r.id)).to.not.include('carol');
    expect((await h.call('GET', '/agents', key.op)).body.map((a: { id: string }) => a.id)).to.not.include('carol');
    expect((await h.call('GET', '/whoami', key.carol)).status).to.equal(401);
    const unretire = await h.call('DELETE', '/agents/carol/retire', key.op);
    expect(unretire.status).to.equal(410);
    const reuse = await h.call('POST', '/agents', h.kernel.adminToken, { id: 'carol' });
    expect(reuse.status).to.equal(409);
    expect(reuse.body.detail).to.contain('never recycled');
    expect((await h.call('DELETE', '/agents/alice', key.bob)).status).to.equal(403);
  });
});

describe('hub seats: delegations', () => {
  let h: HubHarness;
  const key: Record<string, string> = {};
  before(async () => {
    h = await startHub();
    key.alice = await h.seat('alice', { mission: 'report weekly' });
    key.bob = await h.seat('bob');
    key.op = await h.seat('op', { operator: true });
    await h.call('POST', '/channels', key.bob, { name: 'desk-room' });
  });
  after(() => h.stop());

  it('a grant lasts 7 days by default, sorts its powers, shows on /delegations and /whoami, and is revocable', async () => {
    const res = await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['reporting', 'moderation', 'reporting'], note: 'cover for op' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys(['agent_id', 'powers', 'granted_at', 'expires_at', 'expires', 'note', 'scope']);
    expect(res.body.expires).to.equal(res.body.expires_at); // the seed's name for the same instant
    expect(res.body).to.deep.include({ agent_id: 'alice', powers: ['moderation', 'reporting'], note: 'cover for op', scope: '' });
    expect(res.body.expires_at - res.body.granted_at).to.be.closeTo(7 * DAY, 0.001);
    expect((await h.call('GET', '/delegations', key.bob)).body).to.deep.equal([res.body]);
    expect((await h.call('GET', '/whoami', key.alice)).body.delegations).to.deep.equal([res.body]);
    expect((await h.call('GET', '/whoami', key.bob)).body.delegations).to.deep.equal([]);

    const longer = await h.call('PUT', '/admin/delegation', h.kernel.adminToken, { agent_id: 'alice', powers: ['ruling'], ttl_seconds: 30 * DAY });
    expect(longer.body.expires_at - longer.body.granted_at).to.be.closeTo(30 * DAY, 0.001);
    expect((await h.call('GET', '/delegations', key.bob)).body.map((d: { powers: string[] }) => d.powers)).to.deep.equal([['ruling']]);

    expect((await h.call('DELETE', '/admin/delegation/alice', key.op)).body).to.deep.equal({ agent_id: 'alice', revoked: true });
    expect((await h.call('DELETE', '/admin/delegation/alice', key.op)).body).to.deep.equal({ agent_id: 'alice', revoked: false });
    expect((await h.call('GET', '/delegations', key.bob)).body).to.deep.equal([]);
  });

  it('refuses bad powers, operators, seats without a mission and ttls outside (0, 30 days]', async () => {
    const powers = "powers must be a non-empty subset of ['moderation', 'operational', 'proxy', 'reporting', 'ruling']";
    for (const p of [[], ['admin'], ['reporting', 'everything']]) {
      const res = await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: p });
      expect([res.status, res.body.detail], JSON.stringify(p)).to.deep.equal([400, powers]);
    }
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'op', powers: ['reporting'] })).status).to.equal(400);
    const noMission = await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'bob', powers: ['reporting'] });
    expect(noMission.status).to.equal(400);
    expect(noMission.body.detail).to.match(/^'bob' has no mission — set one before delegating to it/);
    for (const ttl of [0, -1, 30 * DAY + 1]) {
      expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['reporting'], ttl_seconds: ttl })).status, String(ttl)).to.equal(400);
    }
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'ghost', powers: ['reporting'] })).status).to.equal(404);
    const seat = await h.call('PUT', '/admin/delegation', key.bob, { agent_id: 'alice', powers: ['reporting'] });
    expect(seat.status).to.equal(403);
    expect((await h.call('DELETE', '/admin/delegation/alice', key.bob)).status).to.equal(403);
  });

  it("a 'proxy' grant needs a channel scope and lasts a day by default; room-admin powers let a delegate invite", async () => {
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['proxy'] })).status).to.equal(400);
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['proxy'], scope: 'nowhere' })).status).to.equal(404);
    const proxy = await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['proxy'], scope: 'desk-room' });
    expect(proxy.body.expires_at - proxy.body.granted_at).to.be.closeTo(DAY, 0.001);
    expect(proxy.body.scope).to.equal('desk-room');
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['proxy'], scope: 'desk-room', ttl_seconds: 8 * DAY })).status).to.equal(400);
    const invite = await h.call('POST', '/channels/desk-room/invites', key.alice, { agent_id: 'op' });
    expect(invite.status).to.equal(200);
    await h.call('DELETE', '/admin/delegation/alice', key.op);
    // Without the grant the private room is no longer hers to know of: the answer of a missing channel.
    expect((await h.call('POST', '/channels/desk-room/invites', key.alice, {})).status).to.equal(404);
  });
});

describe('hub seats: presence', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['zed', 'amy', 'bea', 'loner', 'op'], ['op']);
    await h.call('POST', '/channels/commons/leave', key.loner);
  });
  after(() => h.stop());

  it('a seat sees itself and everyone sharing a channel, sorted by id; operators see everyone; a socket makes a seat present', async () => {
    const { url } = await h.kernel.listen();
    const socket = await SocketClient.open(`${url.replace(/^http/, 'ws')}/hub/ws?token=${key.bea}`);
    try {
      const amy = await h.call('GET', '/presence', key.amy);
      expect(amy.status).to.equal(200);
      expect(amy.body.map((p: { agent_id: string }) => p.agent_id)).to.deep.equal(['amy', 'bea', 'op', 'zed']);
      expect(amy.body.find((p: { agent_id: string }) => p.agent_id === 'bea')).to.deep.include({ state: 'idle' });
      expect(amy.body.find((p: { agent_id: string }) => p.agent_id === 'zed')).to.deep.include({ state: 'offline', updated_at: 0 });
      expect(amy.body.find((p: { agent_id: string }) => p.agent_id === 'amy')).to.deep.include({ state: 'active' });
      expect(amy.body[0]).to.have.keys(['agent_id', 'state', 'updated_at']);
      const loner = await h.call('GET', '/presence', key.loner);
      expect(loner.body.map((p: { agent_id: string }) => p.agent_id)).to.deep.equal(['loner']);
      const op = await h.call('GET', '/presence', key.op);
      expect(op.body.map((p: { agent_id: string }) => p.agent_id)).to.deep.equal(['amy', 'bea', 'loner', 'op', 'zed']);
      expect((await h.call('GET', '/presence')).status).to.equal(401);
    } finally {
      socket.ws.close();
    }
  });
});

describe('hub seats: join tokens', () => {
  let h: HubHarness;
  const key: Record<string, string> = {};
  before(async () => {
    h = await startHub();
    key.owner = await h.seat('owner');
    await h.room('lobby', key.owner);
    await h.room('vault', key.owner, [], true);
  });
  after(() => h.stop());

  const mint = (body: Record<string, unknown>) => h.call('POST', '/join-tokens', h.kernel.adminToken, body);
  const join = (body: Record<string, unknown>) => h.call('POST', '/join', undefined, body);

  it('the admin mints a token; POST /join (no key) registers a non-operator seat in the public channels only; one use', async () => {
    const res = await mint({ channels: ['lobby', 'vault'], about: 'remote helper' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys(['token', 'token_id', 'agent_id', 'about', 'channels', 'created_by', 'created_at', 'expires_at', 'max_uses']);
    expect(res.body.token).to.match(/^agora-join_[0-9a-f]{8}\.[0-9a-f]{48}$/);
    expect(res.body.token.slice(11, 19)).to.equal(res.body.token_id);
    expect(res.body).to.deep.include({ agent_id: null, about: 'remote helper', channels: ['lobby', 'vault'], max_uses: 1 });
    expect(res.body.expires_at - res.body.created_at).to.be.closeTo(DAY, 0.001);

    const joined = await join({ token: res.body.token, agent_id: 'remy', operator: true });
    expect(joined.status).to.equal(200);
    expect(joined.body.agent).to.deep.include({ id: 'remy', operator: false, about: 'remote helper' });
    expect(joined.body.channels_joined).to.deep.equal(['lobby']);
    const whoami = await h.call('GET', '/whoami', joined.body.api_key);
    expect(whoami.body).to.deep.include({ id: 'remy', operator: false });
    const again = await join({ token: res.body.token, agent_id: 'remy2' });
    expect([again.status, again.body.detail]).to.deep.equal([403, 'join token already used']);
  });

  it('a taken id answers 409 without consuming the token; a locked token names its id', async () => {
    const res = await mint({});
    const taken = await join({ token: res.body.token, agent_id: 'owner' });
    expect(taken.status).to.equal(409);
    expect((await join({ token: res.body.token, agent_id: 'fresh' })).status, 'the token survived').to.equal(200);
    expect((await join({ token: (await mint({})).body.token })).status, 'an unlocked token needs an id').to.equal(400);

    const locked = await mint({ agent_id: 'lena' });
    const other = await join({ token: locked.body.token, agent_id: 'mallory' });
    expect([other.status, other.body.detail]).to.deep.equal([403, "join token is locked to 'lena'"]);
    const lena = await join({ token: locked.body.token });
    expect(lena.body.agent.id).to.equal('lena');
  });

  it('refuses invalid, revoked and expired tokens with their sentences; max_uses counts', async () => {
    const res = await mint({ max_uses: 2 });
    expect((await join({ token: 'agora-join_nothing' })).body.detail).to.equal('invalid join token');
    const tampered = res.body.token.slice(0, -1) + (res.body.token.endsWith('0') ? '1' : '0');
    expect(await join({ token: tampered, agent_id: 'tam' }).then((r) => [r.status, r.body.detail])).to.deep.equal([403, 'invalid join token']);
    expect((await join({ token: res.body.token, agent_id: 'one' })).status).to.equal(200);
    expect((await join({ token: res.body.token, agent_id: 'two' })).status).to.equal(200);
    expect((await join({ token: res.body.token, agent_id: 'three' })).body.detail).to.equal('join token already used');

    const revoked = await mint({});
    const del = await h.call('DELETE', `/join-tokens/${revoked.body.token_id}`, h.kernel.adminToken);
    expect(del.body).to.deep.equal({ token_id: revoked.body.token_id, revoked: true });
    expect((await join({ token: revoked.body.token, agent_id: 'late' })).body.detail).to.equal('join token revoked');

    const minted = Date.now();
    const brief = await mint({ ttl_seconds: 0.05 });
    // Once its 50 ms have passed on the clock, however long that takes here.
    await until(async () => Date.now(), (now) => now > minted + 100);
    expect((await join({ token: brief.body.token, agent_id: 'slow' })).body.detail).to.equal('join token expired');
    expect((await mint({ ttl_seconds: 31 * DAY })).status).to.equal(400);
    expect((await mint({ max_uses: 101 })).status).to.equal(400);
  });

  it('listing shows no secrets; only the admin key mints, lists and revokes', async () => {
    const list = await h.call('GET', '/join-tokens', h.kernel.adminToken);
    expect(list.status).to.equal(200);
    expect(list.body.length).to.be.greaterThan(0);
    for (const row of list.body) {
      expect(row).to.not.have.any.keys('token', 'secret_hash');
      expect(JSON.stringify(row)).to.not.match(/[0-9a-f]{48}/);
    }
    expect(list.body[0]).to.deep.include({ uses: 1, used_by: ['remy'], revoked: false });
    expect((await h.call('POST', '/join-tokens', key.owner, {})).status).to.equal(403);
    expect((await h.call('GET', '/join-tokens', key.owner)).status).to.equal(403);
    expect((await h.call('DELETE', `/join-tokens/${list.body[0].token_id}`, key.owner)).status).to.equal(403);
    expect((await h.call('DELETE', '/join-tokens/deadbeef', h.kernel.adminToken)).status).to.equal(404);
  });
});
