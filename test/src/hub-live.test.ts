/**
 * The hub's live socket over a real listener: auth refusals on the upgrade, membership-keyed
 * delivery without self-echo, tombstones, backlog replay by `since`, frames the hub answers, and
 * catch-up after a reconnect so nothing is missed.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { startHub, type HubHarness } from './helpers/hub.js';

interface Frame {
  type: string;
  envelope?: { id: string; channel: string; seq: number; sender: string; body: string | null; retracted: boolean };
  [key: string]: unknown;
}

/** A socket that records every frame, with a wait-for helper. */
class Probe {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static async open(url: string): Promise<Probe> {
    const ws = new WebSocket(url);
    const probe = new Probe(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return probe;
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  envelopes(): NonNullable<Frame['envelope']>[] {
    return this.frames.filter((f) => f.type === 'envelope').map((f) => f.envelope!);
  }

  async until(check: () => boolean, what: string, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(0, 800)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Opens a socket that the server must refuse; resolves with the HTTP status and body of its answer. */
function refusedUpgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => reject(new Error(`${url} opened; a refusal was expected`)));
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('hub live socket', function () {
  let hub: HubHarness;
  let base: string;
  let ada: string;
  let bob: string;
  const open: Probe[] = [];
  const connect = async (key: string) => {
    const p = await Probe.open(`${base}/hub/ws?token=${encodeURIComponent(key)}`);
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
    await a.until(() => a.envelopes().some((e) => e.id === posted.id), 'the envelope on ada');
    expect(a.envelopes().find((e) => e.id === posted.id)).to.include({ channel: 'commons', seq: posted.seq, sender: 'bob', body: 'live hello', retracted: false });
    // Bob is a member too but never gets his own post.
    await hub.call('POST', '/channels/commons/messages', ada, { body: 'marker' });
    await b.until(() => b.envelopes().some((e) => e.body === 'marker'), 'the marker on bob');
    expect(b.envelopes().some((e) => e.id === posted.id)).to.equal(false);
  });

  it('delivers channels created after connect (a new direct channel) and nothing from channels the seat is not in', async () => {
    const b = await connect(bob);
    await hub.call('POST', '/channels', ada, { name: 'ops' });
    await hub.call('POST', '/channels/ops/messages', ada, { body: 'private to ada' });
    const dm = (await hub.call('POST', '/dms/bob/messages', ada, { body: 'just you' })).body;
    await b.until(() => b.envelopes().some((e) => e.id === dm.id), 'the DM');
    expect(b.envelopes().some((e) => e.channel === 'ops')).to.equal(false);
  });

  it('pushes a retraction as a tombstone envelope, to the author too', async () => {
    const a = await connect(ada);
    const b = await connect(bob);
    const m = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'regret' })).body;
    await a.until(() => a.envelopes().some((e) => e.id === m.id), 'the post');
    await hub.call('POST', `/channels/commons/messages/${m.id}/retract`, bob, {});
    for (const p of [a, b]) {
      await p.until(() => p.envelopes().some((e) => e.id === m.id && e.retracted), 'the tombstone');
      expect(p.envelopes().find((e) => e.id === m.id && e.retracted)).to.include({ body: '[retracted by bob]' });
    }
  });

  it('replays the backlog after subscribe with since, in seq order, then continues live without repeats', async () => {
    const before = ((await hub.call('GET', '/channels', ada)).body as Array<{ name: string; last_seq: number }>).find((r) => r.name === 'commons')!.last_seq;
    const missed: unknown[] = [];
    for (let i = 0; i < 5; i++) missed.push((await hub.call('POST', '/channels/commons/messages', bob, { body: `missed ${i}` })).body);
    const a = await connect(ada);
    a.send({ type: 'subscribe', channels: ['commons'], since: { commons: before } });
    await a.until(() => a.envelopes().filter((e) => e.body?.startsWith('missed')).length === 5, 'the backlog');
    expect(a.frames[0]).to.deep.equal({ type: 'subscribed', channels: ['commons'] });
    const seqs = a.envelopes().filter((e) => e.channel === 'commons').map((e) => e.seq);
    expect(seqs).to.deep.equal([...seqs].sort((x, y) => x - y));
    const live = (await hub.call('POST', '/channels/commons/messages', bob, { body: 'after backlog' })).body;
    await a.until(() => a.envelopes().some((e) => e.id === live.id), 'the live row');
    // Re-subscribing with an old cursor repeats nothing already sent on this connection.
    a.send({ type: 'subscribe', channels: ['commons'], since: { commons: before } });
    await a.until(() => a.frames.filter((f) => f.type === 'subscribed').length === 2, 'the second subscribed');
    const ids = a.envelopes().filter((e) => !e.retracted).map((e) => e.id);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('catches up after a reconnect: every message posted while away arrives', async () => {
    const first = await connect(ada);
    const seen = new Map<number, string>();
    const last = () => Math.max(0, ...first.envelopes().filter((e) => e.channel === 'commons').map((e) => e.seq));
    first.send({ type: 'subscribe', channels: ['commons'], since: { commons: 0 } });
    await first.until(() => first.frames.some((f) => f.type === 'subscribed'), 'subscribed');
    await hub.call('POST', '/channels/commons/messages', bob, { body: 'before drop' });
    await first.until(() => first.envelopes().some((e) => e.body === 'before drop'), 'before drop');
    for (const e of first.envelopes()) if (e.channel === 'commons') seen.set(e.seq, e.id);
    const cursor = last();
    first.ws.terminate();
    const away: Array<{ id: string }> = [];
    for (let i = 0; i < 3; i++) away.push((await hub.call('POST', '/channels/commons/messages', bob, { body: `while away ${i}` })).body);
    const second = await connect(ada);
    second.send({ type: 'subscribe', channels: ['commons'], since: { commons: cursor } });
    await second.until(() => away.every((m) => second.envelopes().some((e) => e.id === m.id)), 'the missed rows');
    for (const e of second.envelopes()) if (e.channel === 'commons' && !e.retracted) seen.set(e.seq, e.id);
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
});
