import { expect } from 'chai';
import { HubClient } from '@keel/hub-client';
import { startHub, type HubHarness } from './helpers/hub.js';
import { until } from './helpers/until.js';

// `GET /inbox?wait=<seconds>` long-polls (hub-protocol.md §8.1 B4): it answers as soon as something
// arrives for the seat, or `[]` at its deadline; 0 ≤ wait ≤ 55 else 422; a per-seat cap on parked
// waits (429 beyond); kernel stop ends parked waits cleanly.

describe('hub inbox: ?wait= long-poll', function () {
  this.timeout(120_000);
  let hub: HubHarness;
  let keys: Record<'ann' | 'bob' | 'dan', string>;

  const post = async (who: string, channel: string, payload: Record<string, unknown>) => {
    const res = await hub.call('POST', `/channels/${channel}/messages`, who, { title: 't', status: 'fyi', ...payload });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; seq: number };
  };
  /** Acknowledges everything so the seat's inbox is empty. */
  const drain = async (who: string) => {
    for (const e of (await hub.call('GET', '/inbox', who)).body as Array<{ channel: string; seq: number }>) {
      expect((await hub.call('POST', '/inbox/ack', who, { channel: e.channel, seq: e.seq })).status).to.equal(200);
    }
    expect((await hub.call('GET', '/inbox', who)).body).to.deep.equal([]);
  };
  const timed = async <T>(request: Promise<T>) => {
    const started = Date.now();
    const res = await request;
    return { res, elapsed: Date.now() - started };
  };

  before(async () => {
    hub = await startHub({ inboxWait: { maxPerSeat: 1 } });
    keys = await hub.seats(['ann', 'bob', 'dan'] as const);
    await hub.room('poll', keys.ann, [keys.bob]);
    await hub.room('elsewhere', keys.dan);
  });
  after(async () => hub?.stop());

  it('refuses wait below 0, above 55 or not a number with 422 and a detail list', async () => {
    for (const wait of ['-1', '55.5', '56', 'soon', '']) {
      const res = await hub.call('GET', `/inbox?wait=${wait}`, keys.bob);
      expect(res.status, `wait=${wait}`).to.equal(422);
      expect(res.body.detail, `wait=${wait}`).to.be.an('array').with.length.greaterThan(0);
    }
    for (const wait of ['0', '0.1', '55']) {
      await drain(keys.ann);
      if (wait === '55') await post(keys.bob, 'poll', { body: 'so 55 answers at once' });
      expect((await hub.call('GET', `/inbox?wait=${wait}`, keys.ann)).status, `wait=${wait}`).to.equal(200);
    }
  });

  it('returns as soon as a message arrives for the seat, well before its deadline', async () => {
    await drain(keys.bob);
    const waiting = timed(hub.call('GET', '/inbox?wait=50', keys.bob));
    const m = await post(keys.ann, 'poll', { body: 'wake up' });
    const { res, elapsed } = await waiting;
    expect(res.status).to.equal(200);
    expect(res.body.map((e: { id: string }) => e.id)).to.deep.equal([m.id]);
    expect(elapsed, 'answered before the 50 s deadline').to.be.lessThan(50_000);
  });

  it("answers [] at the deadline when nothing arrives; the seat's own posts and rows it cannot see keep it waiting", async () => {
    await drain(keys.bob);
    const waiting = timed(hub.call('GET', '/inbox?wait=1.5', keys.bob));
    await post(keys.bob, 'poll', { body: 'my own' });
    await post(keys.dan, 'elsewhere', { body: 'not for bob' });
    const { res, elapsed } = await waiting;
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([]);
    expect(elapsed, 'it waited until its deadline').to.be.at.least(1_400);
  });

  it('answers at once when the inbox already holds something (a pinned obligation counts)', async () => {
    await drain(keys.bob);
    const q = await post(keys.ann, 'poll', { status: 'open', to: ['bob'], body: 'yours' });
    await hub.call('POST', '/inbox/ack', keys.bob, { channel: 'poll', seq: q.seq });
    const { res, elapsed } = await timed(hub.call('GET', '/inbox?wait=50', keys.bob));
    expect(res.body.map((e: { id: string }) => e.id)).to.deep.equal([q.id]);
    expect(elapsed).to.be.lessThan(50_000);
    await post(keys.bob, 'poll', { status: 'reply', reply_to: q.id, body: 'done' });
  });

  it('HubClient.inbox({wait}) long-polls past the client timeout and wakes on the next post', async () => {
    await drain(keys.bob);
    const url = (await hub.kernel.listen()).url;
    // A client timeout shorter than the wait: the wait stretches it, so the poll is not cut off.
    const bob = new HubClient({ base_url: `${url}/hub`, bearer_token: keys.bob, timeout_ms: 1000 });
    const waiting = bob.inbox({ wait: 30 });
    let settled = false;
    void waiting.finally(() => (settled = true));
    // Still parked well past the client's own 1 s timeout, then woken by a post.
    await new Promise<void>((resolve) => setTimeout(resolve, 2500));
    expect(settled, 'parked, not cut off by the 1 s client timeout').to.equal(false);
    const m = await post(keys.ann, 'poll', { body: 'client wake' });
    expect((await waiting).map((e) => e.id)).to.deep.equal([m.id]);
  });

  it('caps parked waits per seat (429 beyond the setting); the parked one still answers', async () => {
    await drain(keys.bob);
    const first = hub.call('GET', '/inbox?wait=50', keys.bob);
    // The second is refused once the first is parked (until then it parks briefly and answers []).
    const refused = await until(() => hub.call('GET', '/inbox?wait=0.2', keys.bob), { what: 'a second wait refused with 429', ok: (r) => r.status === 429 });
    expect(refused.body.detail).to.match(/^'bob' already holds 1 waiting inbox requests; the cap is 1\./);
    const m = await post(keys.ann, 'poll', { body: 'release' });
    const res = await first;
    expect(res.body.map((e: { id: string }) => e.id)).to.deep.equal([m.id]);
  });

  it('ends parked waits cleanly when the kernel stops', async () => {
    const other = await startHub({ inboxWait: { maxPerSeat: 1 } });
    const seat = await other.seat('solo');
    await other.room('quiet', seat);
    for (const e of (await other.call('GET', '/inbox', seat)).body as Array<{ channel: string; seq: number }>) {
      await other.call('POST', '/inbox/ack', seat, { channel: e.channel, seq: e.seq });
    }
    const waiting = timed(other.call('GET', '/inbox?wait=55', seat));
    // Parked for sure once a second wait is refused at the cap of one.
    await until(() => other.call('GET', '/inbox?wait=0.2', seat), { what: 'the first wait parked (a second refused)', ok: (r) => r.status === 429 });
    const stopped = timed(other.stop());
    const { res, elapsed } = await waiting;
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([]);
    expect(elapsed, 'the stop ended the wait, not its deadline').to.be.lessThan(55_000);
    expect((await stopped).elapsed).to.be.lessThan(55_000);
  });
});
