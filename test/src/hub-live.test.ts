/**
 * The hub's live socket over a real listener: auth refusals on the upgrade, membership-keyed
 * delivery without self-echo, tombstones, backlog replay by `since`, frames the hub answers, and
 * catch-up after a reconnect so nothing is missed.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { refusedUpgrade, SocketClient } from './helpers/socket-client.js';

interface Envelope {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  body: string | null;
  retracted: boolean;
}

/** The message envelopes a socket received so far. */
const envelopes = (client: SocketClient): Envelope[] => client.ofType('envelope').map((f) => f.envelope as Envelope);

describe('hub live socket', function () {
  let hub: HubHarness;
  let base: string;
  let ada: string;
  let bob: string;
  const open: SocketClient[] = [];
  const connect = async (key: string) => {
    const p = await SocketClient.open(`${base}/hub/ws?token=${encodeURIComponent(key)}`);
    open.push(p);
    return p;
  };

  before(async () => {
    hub = await startHub();
    base = (await hub.kernel.listen()).url.replace(/^http/, 'ws');
    ada = await hub.seat('ada', { operator: true });
    bob = await hub.seat('bob');
  });
  afterEach(() => {
    for (const p of open.splice(0)) p.ws.terminate();
  });
  after(() => hub?.stop());

  it('refuses the upgrade with HTTP 401 and the refusal for a missing or unknown key, before any socket opens', async () => {
    for (const [url, detail] of [[`${base}/hub/ws`, 'missing bearer token'], [`${base}/hub/ws?token=agora_nope`, 'invalid api key']] as const) {
      const refused = await refusedUpgrade(url);
      expect(refused.status).to.equal(401);
      expect(JSON.parse(refused.body)).to.deep.equal({ detail });
    }
  });

  it('pushes new messages of member channels to members, never echoing the sender', async () => {
    const a = await connect(ada);
    const b = await connect(bob);
    const posted = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'live hello' })).body;
    await a.until(() => envelopes(a).some((e) => e.id === posted.id), 'the envelope on ada');
    expect(envelopes(a).find((e) => e.id === posted.id)).to.include({ channel: 'commons', seq: posted.seq, sender: 'bob', body: 'live hello', retracted: false });
    // Bob is a member too but never gets his own post.
    await hub.call('POST', '/channels/commons/messages', ada, { body: 'marker' });
    await b.until(() => envelopes(b).some((e) => e.body === 'marker'), 'the marker on bob');
    expect(envelopes(b).some((e) => e.id === posted.id)).to.equal(false);
  });

  it('delivers channels created after connect (a new direct channel) and nothing from channels the seat is not in', async () => {
    const b = await connect(bob);
    await hub.call('POST', '/channels', ada, { name: 'ops' });
    await hub.call('POST', '/channels/ops/messages', ada, { body: 'private to ada' });
    const dm = (await hub.call('POST', '/dms/bob/messages', ada, { body: 'just you' })).body;
    await b.until(() => envelopes(b).some((e) => e.id === dm.id), 'the DM');
    expect(envelopes(b).some((e) => e.channel === 'ops')).to.equal(false);
  });

  it('follows joins and leaves of a room whose members the fan-out has already looked up', async () => {
    // The fan-out keeps each channel's member ids in memory; every membership change must reach it.
    const cal = await hub.seat('cal');
    const c = await connect(cal);
    expect((await hub.call('POST', '/channels', ada, { name: 'yard', private: false })).status).to.equal(200);
    await hub.call('POST', '/channels/yard/messages', ada, { body: 'before cal joined' });
    expect((await hub.call('POST', '/channels/yard/join', cal, {})).status).to.equal(200);
    const welcome = (await hub.call('POST', '/channels/yard/messages', ada, { body: 'after cal joined' })).body;
    await c.until(() => envelopes(c).some((e) => e.id === welcome.id), 'the post after the join');
    expect(envelopes(c).some((e) => e.body === 'before cal joined')).to.equal(false);

    expect((await hub.call('POST', '/channels/yard/leave', cal, {})).status).to.equal(200);
    await hub.call('POST', '/channels/yard/messages', ada, { body: 'after cal left' });
    // A marker in a room cal is still in, posted after: once it is here, the yard post was fanned out.
    const marker = (await hub.call('POST', '/channels/commons/messages', ada, { body: 'marker after the leave' })).body;
    await c.until(() => envelopes(c).some((e) => e.id === marker.id), 'the marker');
    expect(envelopes(c).some((e) => e.body === 'after cal left')).to.equal(false);

    // Back in: delivered again.
    expect((await hub.call('POST', '/channels/yard/join', cal, {})).status).to.equal(200);
    const back = (await hub.call('POST', '/channels/yard/messages', ada, { body: 'after cal came back' })).body;
    await c.until(() => envelopes(c).some((e) => e.id === back.id), 'the post after rejoining');
  });

  it('pushes a retraction as a tombstone envelope, to the author too', async () => {
    const a = await connect(ada);
    const b = await connect(bob);
    const m = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'regret' })).body;
    await a.until(() => envelopes(a).some((e) => e.id === m.id), 'the post');
    await hub.call('POST', `/channels/commons/messages/${m.id}/retract`, bob, {});
    for (const p of [a, b]) {
      await p.until(() => envelopes(p).some((e) => e.id === m.id && e.retracted), 'the tombstone');
      expect(envelopes(p).find((e) => e.id === m.id && e.retracted)).to.include({ body: '[retracted by bob]' });
    }
  });

  it('replays the backlog after subscribe with since, in seq order, then continues live without repeats', async () => {
    const before = ((await hub.call('GET', '/channels', ada)).body as Array<{ name: string; last_seq: number }>).find((r) => r.name === 'commons')!.last_seq;
    const missed: unknown[] = [];
    for (let i = 0; i < 5; i++) missed.push((await hub.call('POST', '/channels/commons/messages', bob, { body: `missed ${i}` })).body);
    const a = await connect(ada);
    a.send({ type: 'subscribe', channels: ['commons'], since: { commons: before } });
    await a.until(() => envelopes(a).filter((e) => e.body?.startsWith('missed')).length === 5, 'the backlog');
    expect(a.frames[0]).to.deep.equal({ type: 'subscribed', channels: ['commons'] });
    const seqs = envelopes(a).filter((e) => e.channel === 'commons').map((e) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((x, y) => x - y));
    const live = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'after backlog' })).body;
    await a.until(() => envelopes(a).some((e) => e.id === live.id), 'the live row');
    // Re-subscribing with an old cursor repeats nothing already sent on this connection.
    a.send({ type: 'subscribe', channels: ['commons'], since: { commons: before } });
    await a.until(() => a.frames.filter((f) => f.type === 'subscribed').length === 2, 'the second subscribed');
    const ids = envelopes(a).filter((e) => !e.retracted).map((e) => e.id);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('catches up after a reconnect: every message posted while away arrives', async () => {
    const first = await connect(ada);
    const seen = new Map<number, string>();
    const last = () => Math.max(0, ...envelopes(first).filter((e) => e.channel === 'commons').map((e) => e.seq));
    first.send({ type: 'subscribe', channels: ['commons'], since: { commons: 0 } });
    await first.until(() => first.frames.some((f) => f.type === 'subscribed'), 'subscribed');
    await hub.call('POST', '/channels/commons/messages', bob, { body: 'before drop' });
    await first.until(() => envelopes(first).some((e) => e.body === 'before drop'), 'before drop');
    for (const e of envelopes(first)) if (e.channel === 'commons') seen.set(e.seq, e.id);
    const cursor = last();
    first.ws.terminate();
    const away: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++) away.push((await hub.call('POST', '/channels/commons/messages', bob, { body: `while away ${i}` })).body);
    const second = await connect(ada);
    second.send({ type: 'subscribe', channels: ['commons'], since: { commons: cursor } });
    await second.until(() => away.every((m) => envelopes(second).some((e) => e.id === m.id)), 'the missed rows');
    for (const e of envelopes(second)) if (e.channel === 'commons' && !e.retracted) seen.set(e.seq, e.id);
    const head = ((await hub.call('GET', '/channels', ada)).body as Array<{ name: string; last_seq: number }>).find((r) => r.name === 'commons')!.last_seq;
    const own = ((await hub.call('GET', '/channels/commons/messages?limit=1000', ada)).body as Array<{ seq: number; sender: string }>).filter((m) => m.sender === 'ada').map((m) => m.seq);
    for (let seq = 1; seq <= head; seq++) if (!own.includes(seq)) expect(seen.has(seq), `seq ${seq} delivered`).to.equal(true);
  });

  it('answers ping, post, presence and ack frames, and refuses malformed ones', async () => {
    const a = await connect(ada);
    a.send({ type: 'ping' });
    a.send({ type: 'post', channel: 'commons', body: 'over the socket' });
    a.send({ type: 'nope' });
    a.ws.send('not json');
    a.send({ type: 'subscribe', channels: ['nowhere'] });
    await a.until(() => a.frames.filter((f) => f.type === 'error').length === 3 && a.frames.some((f) => f.type === 'posted'), 'the replies');
    expect(a.frames.some((f) => f.type === 'pong')).to.equal(true);
    const posted = a.frames.find((f) => f.type === 'posted')!;
    expect(posted.seq).to.be.a('number');
    const errors = a.frames.filter((f) => f.type === 'error').map((f) => f.detail);
    expect(errors).to.include.members(["unknown frame type 'nope'", 'malformed frame: not valid JSON', "channel 'nowhere' not found"]);
    a.send({ type: 'presence', state: 'working' });
    a.send({ type: 'ack', cursors: { commons: posted.seq } });
    a.send({ type: 'ping' });
    await a.until(() => a.frames.filter((f) => f.type === 'pong').length === 2, 'second pong');
    expect(((await hub.call('GET', '/inbox', ada)).body as Array<{ channel: string }>).filter((e) => e.channel === 'commons')).to.have.length(0);
  });
  it('delivers frames of every length class whole and in seq order, also when many posts settle in one commit', async () => {
    // Frames are encoded once and written to the socket as is: a 7-bit length (pong), a 16-bit one
    // (a short envelope), a 64-bit one (a 65,000-byte body), and a burst of posts whose frames leave together.
    const a = await connect(bob);
    a.send({ type: 'ping' });
    await a.until(() => a.frames.some((f) => f.type === 'pong'), 'the pong');
    // Critical posts carry their whole body in the envelope (long bodies are otherwise previewed).
    const bodies = ['x'.repeat(65_000), ...Array.from({ length: 15 }, (_, i) => `burst ${i}`), 'é'.repeat(30_000)];
    // A fresh operator seat, so the burst stays inside its posting budget (20).
    const cy = await hub.seat('cy', { operator: true });
    const posted = await Promise.all(bodies.map((body) => hub.call('POST', '/channels/commons/messages', cy, { body, critical: body.length > 100 })));
    for (const r of posted) expect(r.status).to.equal(200);
    const ids = new Set(posted.map((r) => r.body.id as string));
    await a.until(() => envelopes(a).filter((e) => ids.has(e.id)).length === bodies.length, 'every envelope');
    const got = envelopes(a).filter((e) => ids.has(e.id));
    expect(got.map((e) => e.seq)).to.deep.equal([...got.map((e) => e.seq)].sort((x, y) => x - y));
    expect(got.map((e) => e.body).sort()).to.deep.equal([...bodies].sort());
    expect(a.ws.readyState).to.equal(a.ws.OPEN);
  });
});
