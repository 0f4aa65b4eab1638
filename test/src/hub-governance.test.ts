/**
 * Hub governance of rooms, through HTTP: invites, groups, archive and unarchive, kicks and bans in
 * a room (and the join refusal they cause), hub-wide blocks that sever a live socket.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { until } from './helpers/gateway-runs.js';
import { refusedUpgrade, SocketClient } from './helpers/socket-client.js';

const DAY = 86400;

/** A seat's live socket, open. */
const openSocket = (url: string, key: string) => SocketClient.open(`${url.replace(/^http/, 'ws')}/hub/ws?token=${encodeURIComponent(key)}`);

describe('hub governance: invites and groups', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'carol', 'op'], ['op']);
    await h.room('lab', key.alice, [], true);
  });
  after(() => h.stop());

  it('the owner mints a single-use invite locked to a seat; it opens the private room once', async () => {
    const res = await h.call('POST', '/channels/lab/invites', key.alice, { agent_id: 'bob' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys(['invite_token', 'channel', 'agent_id']);
    expect(res.body.invite_token).to.match(/^invite_[0-9a-f]{48}$/);
    expect(res.body).to.deep.include({ channel: 'lab', agent_id: 'bob' });
    const carolTries = await h.call('POST', '/channels/lab/join', key.carol, { invite_token: res.body.invite_token });
    // A token that is not hers does not reveal the private room: the answer of a missing channel.
    expect(carolTries.status).to.equal(404);
    expect(carolTries.body.detail).to.equal("channel 'lab' not found");
    expect((await h.call('POST', '/channels/lab/join', key.bob, { invite_token: res.body.invite_token })).status).to.equal(200);
    await h.call('POST', '/channels/lab/leave', key.bob);
    const reused = await h.call('POST', '/channels/lab/join', key.bob, { invite_token: res.body.invite_token });
    expect(reused.status).to.equal(404);
  });

  it('only a room admin may invite; the invitee must be registered; DMs take none', async () => {
    const invite = await h.call('POST', '/channels/lab/invites', key.alice, { agent_id: 'bob' });
    await h.call('POST', '/channels/lab/join', key.bob, { invite_token: invite.body.invite_token });
    const member = await h.call('POST', '/channels/lab/invites', key.bob, { agent_id: 'carol' });
    expect(member.status).to.equal(403);
    expect(member.body.detail).to.match(/^creating an invite in 'lab' needs the channel owner \(alice\), an operator, or a delegate/);
    const ghost = await h.call('POST', '/channels/lab/invites', key.alice, { agent_id: 'ghost' });
    expect(ghost.status).to.equal(404);
    expect(ghost.body.detail).to.equal("agent 'ghost' is not registered");
    const open = await h.call('POST', '/channels/lab/invites', key.op, {});
    expect(open.status, 'an operator need not be a member').to.equal(200);
    expect(open.body.agent_id).to.equal(null);
    expect((await h.call('POST', '/channels/lab/invites', key.alice, { ttl_seconds: 31 * DAY })).status).to.equal(400);
    await h.call('POST', '/dms/bob/messages', key.alice, { body: 'hi' });
    expect((await h.call('POST', `/channels/${encodeURIComponent('dm:alice--bob')}/invites`, key.alice, { agent_id: 'carol' })).status).to.equal(400);
    expect((await h.call('POST', '/channels/nowhere/invites', key.alice, {})).status).to.equal(404);
  });

  it('POST /groups creates the room, stores its purpose, invites each member by DM, and opens with an open post', async () => {
    const res = await h.call('POST', '/groups', key.alice, { name: 'squad', members: ['bob', 'carol', 'ghost', 'alice'], purpose: 'ship the hub' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys(['channel', 'created', 'invited', 'failed', 'opening_seq']);
    expect(res.body.channel).to.equal('squad');
    expect(res.body.created).to.deep.include({ name: 'squad', private: true, created_by: 'alice' });
    expect(res.body.invited).to.deep.equal(['bob', 'carol']);
    expect(res.body.failed).to.deep.equal([{ agent: 'ghost', error: "agent 'ghost' is not registered" }]);

    const dm = await h.call('GET', `/channels/${encodeURIComponent('dm:alice--carol')}/messages`, key.carol);
    const invite = dm.body.find((m: { title: string }) => m.title === 'invite to squad');
    expect(invite, 'the invite DM').to.not.equal(undefined);
    expect(invite).to.deep.include({ sender: 'alice', status: 'fyi', to: ['carol'] });
    expect(invite.data).to.deep.equal({ invite_token: invite.data.invite_token, channel: 'squad' });
    expect(invite.data.invite_token).to.match(/^invite_[0-9a-f]{48}$/);
    expect(invite.body).to.contain(invite.data.invite_token);

    const joined = await h.call('POST', '/channels/squad/join', key.carol, { invite_token: invite.data.invite_token });
    expect(joined.status).to.equal(200);
    const history = await h.call('GET', '/channels/squad/messages', key.carol);
    const opening = history.body.find((m: { seq: number }) => m.seq === res.body.opening_seq);
    expect(opening).to.deep.include({ sender: 'alice', status: 'open', body: 'ship the hub' });

    const meta = await h.call('GET', `/channels/squad/store/${encodeURIComponent('channel:meta')}`, key.carol);
    expect(meta.status).to.equal(200);
    expect(meta.body.value).to.deep.include({ purpose: 'ship the hub' });
  });

  it('a group takes an explicit opening post, and refuses a taken name like channel creation', async () => {
    const res = await h.call('POST', '/groups', key.bob, { name: 'duo', members: ['carol'], purpose: 'pairing', opening_post: 'first: the plan', private: false });
    expect(res.status).to.equal(200);
    expect(res.body.created.private).to.equal(false);
    const rows = await h.call('GET', '/channels/duo/messages', key.bob);
    expect(rows.body.find((m: { seq: number }) => m.seq === res.body.opening_seq).body).to.equal('first: the plan');
    const again = await h.call('POST', '/groups', key.bob, { name: 'duo', members: [], purpose: 'x' });
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.equal("channel 'duo' already exists");
  });
});

describe('hub governance: archive and unarchive', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'op'], ['op']);
    await h.room('room', key.alice, [key.bob]);
    await h.call('POST', '/channels/room/messages', key.bob, { body: 'kept for the record' });
  });
  after(() => h.stop());

  it('only the owner or an operator archives; DMs and commons cannot be archived; the admin key is no seat', async () => {
    const bob = await h.call('POST', '/channels/room/archive', key.bob);
    expect(bob.status).to.equal(403);
    expect(bob.body.detail).to.equal("archiving 'room' needs its owner (alice) or an operator");
    await h.call('POST', '/dms/bob/messages', key.alice, { body: 'hi' });
    expect((await h.call('POST', `/channels/${encodeURIComponent('dm:alice--bob')}/archive`, key.alice)).status).to.equal(400);
    expect((await h.call('POST', '/channels/commons/archive', key.op)).status).to.equal(400);
    expect((await h.call('POST', '/channels/room/archive', h.kernel.adminToken)).status).to.equal(401);
    expect((await h.call('POST', '/channels/none/archive', key.alice)).status).to.equal(404);
  });

  it('archiving evicts every member, delists the room, refuses writes with 409; a second archive says already_archived', async () => {
    const res = await h.call('POST', '/channels/room/archive', key.alice, {});
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ channel: 'room', archived: true, evicted: ['alice', 'bob'], already_archived: false });
    const again = await h.call('POST', '/channels/room/archive', key.op);
    expect(again.body).to.deep.equal({ channel: 'room', archived: true, evicted: [], already_archived: true });

    const list = await h.call('GET', '/channels', key.alice);
    expect(list.body.map((c: { name: string }) => c.name)).to.not.include('room');
    const opList = await h.call('GET', '/channels?include_archived=true', key.op);
    expect(opList.body.find((c: { name: string }) => c.name === 'room')).to.deep.include({ archived: true, member_count: 0 });
    const members = await h.call('GET', '/channels/room/members', key.alice);
    expect(members.status, 'no longer a member').to.equal(403);

    const join = await h.call('POST', '/channels/room/join', key.bob, {});
    expect(join.status).to.equal(409);
    expect(join.body.detail).to.match(/^channel 'room' is archived/);
    expect((await h.call('POST', '/channels/room/invites', key.op, { agent_id: 'bob' })).status).to.equal(409);
  });

  it('only an operator unarchives; the original owner is re-seated, other members are not, history is intact', async () => {
    const owner = await h.call('DELETE', '/channels/room/archive', key.alice);
    expect(owner.status).to.equal(403);
    expect(owner.body.detail).to.match(/^only an operator can unarchive a channel/);
    const res = await h.call('DELETE', '/channels/room/archive', key.op);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ channel: 'room', archived: false, owner: 'alice' });
    const members = await h.call('GET', '/channels/room/members', key.alice);
    expect(members.body.map((m: { agent_id: string; role: string }) => [m.agent_id, m.role])).to.deep.equal([['alice', 'owner']]);
    expect((await h.call('GET', '/channels/room/messages', key.bob)).status, 'bob must rejoin').to.equal(403);
    const history = await h.call('GET', '/channels/room/messages', key.alice);
    expect(history.body.map((m: { body: string }) => m.body)).to.include('kept for the record');
    expect((await h.call('GET', '/channels', key.bob)).body.map((c: { name: string }) => c.name)).to.include('room');
    const again = await h.call('DELETE', '/channels/room/archive', key.op);
    expect(again.body).to.deep.equal({ channel: 'room', archived: false, already_open: true });
  });
});

describe('hub governance: kicks and bans in a room', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'carol', 'dave', 'op'], ['op']);
    await h.room('club', key.alice, [key.bob, key.carol, key.dave]);
  });
  after(() => h.stop());

  it('a kick removes the seat, withdraws its ratings there, posts a notice and refuses its re-join until lifted', async () => {
    const said = await h.call('POST', '/channels/club/messages', key.carol, { body: 'rate me' });
    await h.call('PUT', `/channels/club/messages/${said.body.id}/rating`, key.bob, { value: 1 });
    const res = await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'bob', seconds: 600, reason: 'cool off' });
    expect(res.status).to.equal(200);
    expect(res.body).to.have.keys(['scope', 'agent_id', 'imposed_by', 'imposed_at', 'expires_at', 'reason']);
    expect(res.body).to.deep.include({ scope: 'club', agent_id: 'bob', imposed_by: 'alice', reason: 'cool off' });
    expect(res.body.expires_at - res.body.imposed_at).to.be.closeTo(600, 0.001);

    const members = await h.call('GET', '/channels/club/members', key.alice);
    expect(members.body.map((m: { agent_id: string }) => m.agent_id)).to.not.include('bob');
    const rows = await h.call('GET', '/channels/club/messages', key.carol);
    expect(rows.body.find((m: { id: string }) => m.id === said.body.id).ratings).to.deep.include({ up: 0, down: 0 });
    const last = rows.body[rows.body.length - 1];
    expect(last).to.deep.include({ sender: 'hub', kind: 'system' });
    expect(last.body).to.match(/^bob kicked by alice until \d\d:\d\d — cool off$/);

    const join = await h.call('POST', '/channels/club/join', key.bob, {});
    expect(join.status).to.equal(403);
    expect(join.body.detail).to.match(/^you are kicked by alice until \d\d:\d\d from 'club' — cool off\. Access resumes when the block expires or an operator lifts it\.$/);

    const listed = await h.call('GET', '/blocks?scope=club', key.dave);
    expect(listed.body.map((b: { agent_id: string }) => b.agent_id)).to.deep.equal(['bob']);
    expect((await h.call('GET', '/blocks?scope=hub', key.dave)).body).to.deep.equal([]);

    const lifted = await h.call('DELETE', '/channels/club/blocks/bob', key.alice);
    expect(lifted.body).to.deep.equal({ agent_id: 'bob', scope: 'club', lifted: true });
    expect((await h.call('DELETE', '/channels/club/blocks/bob', key.alice)).body.lifted).to.equal(false);
    expect((await h.call('POST', '/channels/club/join', key.bob, {})).status).to.equal(200);
    expect((await h.call('GET', '/blocks?scope=club', key.dave)).body).to.deep.equal([]);
  });

  it('no seconds (or null) is a ban with no end', async () => {
    const res = await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'dave', seconds: null });
    expect(res.status).to.equal(200);
    expect(res.body.expires_at).to.equal(null);
    const join = await h.call('POST', '/channels/club/join', key.dave, {});
    expect(join.body.detail).to.match(/^you are banned by alice from 'club'\./);
    await h.call('DELETE', '/channels/club/blocks/dave', key.op);
  });

  it('an expired kick drops off /blocks and no longer refuses the join', async () => {
    // Long enough that the join below is refused even on a busy machine; then it expires on its own.
    await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'dave', seconds: 2 });
    expect((await h.call('POST', '/channels/club/join', key.dave, {})).status).to.equal(403);
    await until(async () => (await h.call('GET', '/blocks?scope=club', key.bob)).body, (blocks) => Array.isArray(blocks) && blocks.length === 0);
    expect((await h.call('POST', '/channels/club/join', key.dave, {})).status).to.equal(200);
  });

  it('refuses self, DMs and bad durations (400); operators and the owner cannot be blocked; members need authority (403)', async () => {
    const self = await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'alice' });
    expect([self.status, self.body.detail]).to.deep.equal([400, 'you cannot block yourself']);
    for (const seconds of [0, -5, 7 * DAY + 1]) {
      const bad = await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'carol', seconds });
      expect(bad.status, String(seconds)).to.equal(400);
      expect(bad.body.detail).to.match(/^seconds must be in \(0, 604800\]/);
    }
    expect((await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'carol', seconds: 7 * DAY })).status).to.equal(200);
    await h.call('DELETE', '/channels/club/blocks/carol', key.alice);
    await h.call('POST', '/dms/bob/messages', key.alice, { body: 'hi' });
    expect((await h.call('POST', `/channels/${encodeURIComponent('dm:alice--bob')}/blocks`, key.alice, { agent: 'bob' })).status).to.equal(400);
    const op = await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'op' });
    expect([op.status, op.body.detail]).to.deep.equal([403, 'operators cannot be kicked or banned (lifecycle safety)']);
    const owner = await h.call('POST', '/channels/club/blocks', key.op, { agent: 'alice' });
    expect(owner.status).to.equal(403);
    expect(owner.body.detail).to.equal("'alice' owns 'club' — a room owner cannot be kicked or banned from it");
    const member = await h.call('POST', '/channels/club/blocks', key.bob, { agent: 'carol' });
    expect(member.status).to.equal(403);
    expect(member.body.detail).to.equal("blocking in 'club' needs the channel owner (alice), an operator, or a delegate holding 'moderation'");
    expect((await h.call('DELETE', '/channels/club/blocks/carol', key.bob)).status).to.equal(403);
    expect((await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'ghost' })).status).to.equal(404);
  });

  it("a 'moderation' delegate may block in its scope, but not another delegate", async () => {
    await h.call('PUT', '/admin/agents/dave/mission', key.op, { mission: 'keep the club civil' });
    await h.call('PUT', '/admin/agents/carol/mission', key.op, { mission: 'write the reports' });
    expect((await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'dave', powers: ['moderation'], scope: 'club' })).status).to.equal(200);
    const kick = await h.call('POST', '/channels/club/blocks', key.dave, { agent: 'bob', seconds: 60 });
    expect(kick.status).to.equal(200);
    expect(kick.body.imposed_by).to.equal('dave');
    await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'carol', powers: ['reporting'] });
    const shielded = await h.call('POST', '/channels/club/blocks', key.dave, { agent: 'carol', seconds: 60 });
    expect(shielded.status).to.equal(403);
    expect(shielded.body.detail).to.equal("'carol' holds a delegation — only an operator can kick or ban a delegate");
    const hubWide = await h.call('POST', '/hub/blocks', key.dave, { agent: 'bob' });
    expect(hubWide.status, 'a room-scoped grant does not reach the hub').to.equal(403);
  });
});

describe('hub governance: hub-wide blocks', () => {
  let h: HubHarness;
  let url: string;
  const key: Record<string, string> = {};
  before(async () => {
    h = await startHub();
    for (const id of ['alice', 'bob', 'carol']) key[id] = await h.seat(id, { mission: `${id}'s charge` });
    key.op = await h.seat('op', { operator: true });
    url = (await h.kernel.listen()).url;
  });
  after(() => h.stop());

  it('a hub ban severs the live socket (4403 hub-blocked), refuses every call and reconnects, and revokes the delegation', async () => {
    await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'bob', powers: ['reporting'] });
    const socket = await openSocket(url, key.bob);
    const res = await h.call('POST', '/hub/blocks', key.op, { agent: 'bob', reason: 'spam' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ scope: 'hub', agent_id: 'bob', imposed_by: 'op', expires_at: null, reason: 'spam' });
    expect(await socket.closedWith()).to.deep.equal({ code: 4403, reason: 'hub-blocked' });

    const whoami = await h.call('GET', '/whoami', key.bob);
    expect(whoami.status).to.equal(403);
    expect(whoami.body.detail).to.equal('you are banned by op from this hub — spam. Access resumes when the block expires or an operator lifts it.');
    // The reconnect is refused on the upgrade itself: HTTP 403 with the ban's sentence, no socket.
    const again = await refusedUpgrade(`${url.replace(/^http/, 'ws')}/hub/ws?token=${key.bob}`);
    expect(again.status).to.equal(403);
    expect(JSON.parse(again.body).detail).to.equal('you are banned by op from this hub — spam. Access resumes when the block expires or an operator lifts it.');
    expect((await h.call('GET', '/delegations', key.alice)).body.map((d: { agent_id: string }) => d.agent_id)).to.not.include('bob');
    expect((await h.call('GET', '/blocks?scope=hub', key.alice)).body.map((b: { agent_id: string }) => b.agent_id)).to.deep.equal(['bob']);

    const lifted = await h.call('DELETE', '/hub/blocks/bob', key.op);
    expect(lifted.body).to.deep.equal({ agent_id: 'bob', scope: 'hub', lifted: true });
    expect((await h.call('GET', '/whoami', key.bob)).status).to.equal(200);
  });

  it('a timed hub kick reads as a kick; seat keys of operators or moderation delegates only', async () => {
    const kick = await h.call('POST', '/hub/blocks', key.op, { agent: 'carol', seconds: 120 });
    expect(kick.body.expires_at - kick.body.imposed_at).to.be.closeTo(120, 0.001);
    expect((await h.call('GET', '/whoami', key.carol)).body.detail).to.match(/^you are kicked by op until \d\d:\d\d from this hub\./);
    await h.call('DELETE', '/hub/blocks/carol', key.op);

    const member = await h.call('POST', '/hub/blocks', key.alice, { agent: 'carol' });
    expect(member.status).to.equal(403);
    expect(member.body.detail).to.equal("hub-scope kicks/bans need an operator or a delegate holding 'moderation'");
    expect((await h.call('DELETE', '/hub/blocks/carol', key.alice)).status).to.equal(403);
    expect((await h.call('POST', '/hub/blocks', h.kernel.adminToken, { agent: 'carol' })).status, 'the admin key is not a seat').to.equal(401);
    expect((await h.call('POST', '/hub/blocks', key.op, { agent: 'op' })).status).to.equal(400);

    await h.call('PUT', '/admin/delegation', key.op, { agent_id: 'alice', powers: ['moderation'] });
    const byDelegate = await h.call('POST', '/hub/blocks', key.alice, { agent: 'carol', seconds: 60 });
    expect(byDelegate.status).to.equal(200);
    expect(byDelegate.body.imposed_by).to.equal('alice');
    expect((await h.call('DELETE', '/hub/blocks/carol', key.alice)).body.lifted).to.equal(true);
    const operator = await h.call('POST', '/hub/blocks', key.alice, { agent: 'op' });
    expect([operator.status, operator.body.detail]).to.deep.equal([403, 'operators cannot be kicked or banned (lifecycle safety)']);
  });
});
