/**
 * The notice texts clients match on, worded as the reference hub words them (reference §8.1 B5),
 * read back from the transcripts through HTTP: the group invite a client parses
 * `join_channel(channel='…', invite_token='…')` out of, room lifecycle notices (created, joined,
 * left, archived, reopened, kicked/banned, block lifted, direct channels) and the pause notices.
 */
import { expect } from 'chai';
import { hubNotices } from '@keel/plugin-hub';
import { startHub, type HubHarness } from './helpers/hub.js';

/** AgoraWUI refreshes its roster when a hub notice matches this (reference §8.1 B5). */
const ROSTER_WORDS = /\b(joined|left|kicked|banned|archived|reopened)\b/i;

interface Row { sender: string; kind: string; body: string; title: string; status: string; data: Record<string, unknown> | null; to: string[] }

describe('hub notices', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['alice', 'bob', 'carol', 'op'], ['op']);
  });
  after(() => h.stop());

  const rows = async (channel: string, as: string): Promise<Row[]> => {
    const res = await h.call('GET', `/channels/${encodeURIComponent(channel)}/messages?limit=1000`, as);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as Row[];
  };
  const hubBodies = async (channel: string, as: string) => (await rows(channel, as)).filter((r) => r.sender === 'hub').map((r) => r.body);

  it("a group invite is a DM whose body carries join_channel(channel='…', invite_token='…') exactly as the reference words it", async () => {
    const res = await h.call('POST', '/groups', key.alice, { name: 'squad', members: ['bob'], purpose: 'ship the hub' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const invite = (await rows('dm:alice--bob', key.bob)).find((r) => r.title === 'invite to squad');
    expect(invite).to.not.equal(undefined);
    const token = String(invite!.data!.invite_token);
    expect(token).to.match(/^invite_[0-9a-f]{48}$/);
    expect(invite!.body).to.equal(
      `You are invited to 'squad' — focused room: ship the hub. Join with join_channel(channel='squad', invite_token='${token}'), read the opening post, and work the topic THERE (not in commons).`,
    );
    // The way the reference's own test and clients read it.
    expect(invite!.body.split('invite_token=')[1].split("'")[1]).to.equal(token);
    expect(/channel='([^']+)'/.exec(invite!.body)?.[1]).to.equal('squad');
    expect(invite).to.deep.include({ sender: 'alice', status: 'fyi', to: ['bob'] });
    // And the token it carries works.
    expect((await h.call('POST', '/channels/squad/join', key.bob, { invite_token: token })).status).to.equal(200);

    await h.call('POST', '/groups', key.alice, { name: 'quiet', members: ['carol'], purpose: '' });
    const plain = (await rows('dm:alice--carol', key.carol)).find((r) => r.title === 'invite to quiet');
    expect(plain!.body).to.match(/^You are invited to 'quiet' — focused room\. Join with join_channel\(channel='quiet', invite_token='invite_[0-9a-f]{48}'\), /);
  });

  it('the first row of a direct channel names both peers', async () => {
    expect((await h.call('POST', '/dms/carol/messages', key.bob, { body: 'hi' })).status).to.equal(200);
    expect((await rows('dm:bob--carol', key.bob))[0]).to.deep.include({ sender: 'hub', kind: 'system', body: 'direct channel between bob and carol' });
    // A peer who left is re-seated by the next message, with the reference's notice.
    expect((await h.call('POST', `/channels/${encodeURIComponent('dm:bob--carol')}/leave`, key.carol)).status).to.equal(200);
    expect((await h.call('POST', '/dms/carol/messages', key.bob, { body: 'back?' })).status).to.equal(200);
    expect(await hubBodies('dm:bob--carol', key.carol)).to.include('carol rejoined — writing to a direct channel re-opens it for both peers');
  });

  it('room lifecycle notices: created, joined, left, archived with the count, reopened with the owner', async () => {
    await h.room('lab', key.bob, [key.carol]);
    await h.call('POST', '/channels/lab/leave', key.carol);
    await h.call('POST', '/channels/lab/join', key.carol, {});
    expect((await h.call('POST', '/channels/lab/archive', key.bob)).status).to.equal(200);
    expect((await h.call('DELETE', '/channels/lab/archive', key.op)).status).to.equal(200);
    const bodies = await hubBodies('lab', key.bob);
    expect(bodies.slice(0, 1)).to.deep.equal(['channel created by bob']);
    expect(bodies).to.include.members(['carol joined', 'carol left',
      'channel archived by bob — 2 member(s) evicted; history preserved, room delisted',
      'channel reopened by op — owner bob restored; prior members must rejoin']);
    for (const b of bodies.filter((x) => !x.startsWith('fs:'))) if (b !== 'channel created by bob') expect(b).to.match(ROSTER_WORDS);
  });

  it("room kicks, bans and lifts read '<agent> kicked by <actor> until HH:MM — <reason>', '<agent> banned by <actor>', \"<agent>'s block is lifted\"", async () => {
    await h.room('club', key.alice, [key.bob, key.carol]);
    expect((await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'bob', seconds: 600, reason: 'cool off' })).status).to.equal(200);
    expect((await h.call('POST', '/channels/club/blocks', key.alice, { agent: 'carol' })).status).to.equal(200);
    expect((await h.call('DELETE', '/channels/club/blocks/bob', key.alice)).status).to.equal(200);
    const bodies = await hubBodies('club', key.alice);
    expect(bodies).to.include.members(['carol banned by alice', "bob's block is lifted — they may rejoin."]);
    expect(bodies.find((b) => b.startsWith('bob kicked'))).to.match(/^bob kicked by alice until \d\d:\d\d — cool off$/);
  });

  it('a pause and its resume post the reference texts in every room but direct channels, archived rooms included, once', async () => {
    await h.room('attic', key.alice);
    await h.call('POST', '/channels/attic/archive', key.alice);
    const paused = await h.call('PUT', '/admin/pause', h.kernel.adminToken, { reason: 'storage\n\tmigration' });
    expect(paused.status).to.equal(200);
    expect(paused.body).to.include({ state: 'paused', reason: 'storage migration', by: 'operator' });
    const again = await h.call('PUT', '/admin/pause', h.kernel.adminToken, { reason: 'other' });
    expect(again.body).to.deep.equal(paused.body);
    expect((await h.call('DELETE', '/admin/pause', h.kernel.adminToken)).body).to.deep.equal({ state: 'open' });
    expect((await h.call('DELETE', '/admin/pause', h.kernel.adminToken)).body).to.deep.equal({ state: 'open' });

    const pausedText = 'HUB PAUSED by the operator — storage migration. Stand down: finish nothing new; reads and acks stay open; the resume will be announced here.';
    const resumedText = 'HUB RESUMED by the operator — normal collaboration resumes. Obligation clocks were frozen for the duration.';
    // The archived room is read once reopened (its owner is re-seated).
    expect((await h.call('DELETE', '/channels/attic/archive', key.op)).status).to.equal(200);
    for (const channel of ['commons', 'squad', 'club', 'attic']) {
      const all = await rows(channel, key.alice);
      const notices = all.filter((r) => r.body === pausedText || r.body === resumedText);
      expect(notices.map((r) => [r.body, r.data]), channel).to.deep.equal([[pausedText, { hub_state: 'paused' }], [resumedText, { hub_state: 'open' }]]);
      expect(notices[0]).to.deep.include({ sender: 'hub', kind: 'system', status: 'fyi', title: '' });
    }
    const dm = await rows('dm:bob--carol', key.bob);
    expect(dm.some((r) => r.body.startsWith('HUB '))).to.equal(false);
  });
});

describe('hub pause: PUT /admin/pause is the admin key only', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  before(async () => {
    h = await startHub();
    key = await h.seats(['op', 'bob'], ['op']);
  });
  after(() => h.stop());

  it("refuses an operator's seat key with the reference's sentence, a missing key with 401, and a long reason with the cap sentence", async () => {
    for (const token of [key.op, key.bob]) {
      const refused = await h.call('PUT', '/admin/pause', token, { reason: 'x' });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({ detail: 'pausing the hub requires the admin key' });
    }
    const keyless = await h.call('PUT', '/admin/pause', undefined, {});
    expect(keyless.status).to.equal(401);
    expect(keyless.body).to.deep.equal({ detail: 'missing bearer token' });
    const long = await h.call('PUT', '/admin/pause', h.kernel.adminToken, { reason: 'r'.repeat(201) });
    expect(long.status).to.equal(400);
    expect(long.body.detail).to.equal('pause reason is 201 characters; the cap is 200. Shorten it — the hub will not choose which 1 characters to drop.');
    expect((await h.call('GET', '/healthz')).body.paused).to.equal(false);
    // The operator's own form stays: POST with an operator's seat key.
    expect((await h.call('POST', '/admin/pause', key.op, {})).body).to.include({ state: 'paused', by: 'op' });
    expect((await h.call('DELETE', '/admin/pause', key.op)).body).to.deep.equal({ state: 'open' });
  });
});

describe('hub notices: the module holds every text of the reference, word for word', () => {
  // 2026-11-24 09:05 UTC, as epoch seconds.
  const at = Date.UTC(2026, 10, 24, 9, 5) / 1000;

  it('room, direct-channel and block texts', () => {
    expect(hubNotices.joined('amy', '')).to.equal('amy joined');
    expect(hubNotices.joined('amy', 'reviews PRs')).to.equal('amy joined — reviews PRs');
    expect(hubNotices.directChannelRejoined('bob')).to.equal('bob rejoined — writing to a direct channel re-opens it for both peers');
    expect(hubNotices.roomBlocked('bob', 'amy', at, '')).to.equal('bob kicked by amy until 09:05');
    expect(hubNotices.hubBlocked('bob', 'op', null, 'spam')).to.equal('HUB BLOCK: bob banned by op — spam. Every call refuses while it stands.');
    expect(hubNotices.hubBlocked('bob', 'op', at, '')).to.equal('HUB BLOCK: bob kicked by op until 09:05. Every call refuses while it stands.');
    expect(hubNotices.hubBlockLifted('bob')).to.equal('HUB BLOCK LIFTED: bob may sign in again.');
  });

  it('ownership, role, pause-reminder and thread-closer texts', () => {
    expect(hubNotices.ownershipTransferred('amy', 'bob', 'op')).to.equal(
      "channel ownership transferred: amy -> bob (by op). bob now owns the charter, the `channel:` rows, invites and the room's end.",
    );
    expect(hubNotices.ownershipReceived('lab', 'bob', 'op')).to.equal(
      "YOU NOW OWN 'lab' (bob), handed over by op. Yours now: the charter (`channel/charter.md`), the `channel:` metadata rows, minting invites, and archiving the room when the work is done.",
    );
    expect(hubNotices.roleChanged('bob', true, 'op')).to.equal('ROLE CHANGED: bob is now an operator — by op.');
    expect(hubNotices.roleChanged('bob', false, 'op')).to.equal('ROLE CHANGED: bob is now a member — by op.');
    expect(hubNotices.yourRoleChanged('bob', true, 'op')).to.equal('YOU ARE NOW AN OPERATOR (bob), granted by op.');
    expect(hubNotices.yourRoleChanged('bob', false, 'op')).to.equal('YOUR ROLE CHANGED (bob): you are now a member, by op.');
    expect(hubNotices.hubStillPaused(at, 'upgrade')).to.equal(
      'HUB STILL PAUSED (since 2026-11-24 09:05, reason: upgrade) — resume with `agora resume` when ready; this reminder repeats daily.',
    );
    expect(hubNotices.hubPaused('')).to.equal('HUB PAUSED by the operator. Stand down: finish nothing new; reads and acks stay open; the resume will be announced here.');
    expect(hubNotices.THREAD_CLOSED).to.equal('thread closed: this work is stood down. Stop here and post no further replies on it.');
  });
});
