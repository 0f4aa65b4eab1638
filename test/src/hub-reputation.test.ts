import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

// Reputation through HTTP: votes on four axes, their refusals, the unified boards (channel and
// hub-wide) with their ordering, message thumbs as `general`, withdrawal on leave and retraction,
// and the message-rating budget.

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}
interface Row {
  target: string;
  score: number;
  raters: number;
  votes: { up: number; down: number };
  breakdown: Record<string, { score: number; up: number; down: number; raters: number }>;
  channels?: number;
}

describe('hub reputation', function () {
  this.timeout(30_000);
  let k: TestKernel;
  const keys: Record<string, string> = {};

  async function call(method: string, url: string, who: string, payload?: unknown): Promise<Res> {
    const res = await k.inject({ method, url: `/hub${url}`, token: keys[who]!, payload });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
  }
  async function ok(method: string, url: string, who: string, payload?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await call(method, url, who, payload);
    expect(res.status, `${method} ${url} as ${who}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  }
  const vote = (who: string, channel: string, target: string, axis: string, value: number, note = '') => call('PUT', `/channels/${channel}/reputation/${target}`, who, { axis, value, note });
  const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

  before(async () => {
    k = await createTestKernel({ plugins: [hubPlugin] });
    for (const id of ['r1', 'r2', 'r3', 'ta', 'tb', 'tc', 'td', 'loner']) {
      const res = await k.inject({ method: 'POST', url: '/hub/agents', token: k.adminToken, payload: { id } });
      expect(res.statusCode, res.body).to.equal(200);
      keys[id] = JSON.parse(res.body).api_key;
    }
    await ok('POST', '/channels', 'r1', { name: 'guild', private: false });
    for (const id of ['r2', 'r3', 'ta', 'tb', 'tc', 'td']) await ok('POST', '/channels/guild/join', id, {});
    await ok('POST', '/channels', 'r1', { name: 'annex', private: false });
    for (const id of ['r2', 'ta']) await ok('POST', '/channels/annex/join', id, {});
    await ok('POST', '/channels', 'r1', { name: 'solo', private: false });
  });
  after(async () => k?.stop());

  describe('votes', () => {
    it('casts a vote, and a re-PUT revises it keeping created_at', async () => {
      const first = await vote('r3', 'guild', 'tb', 'thorough', 1, 'careful reviews');
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ channel: 'guild', target: 'tb', rater: 'r3', axis: 'thorough', value: 1, note: 'careful reviews' });
      expect(first.body.created_at).to.equal(first.body.updated_at);
      await tick();
      const revised = (await vote('r3', 'guild', 'tb', 'thorough', -1, 'changed my mind')).body;
      expect(revised).to.include({ value: -1, note: 'changed my mind', created_at: first.body.created_at });
      expect(revised.updated_at).to.be.greaterThan(first.body.updated_at);
      const votes = await ok('GET', '/channels/guild/reputation/tb/votes', 'r1');
      expect(votes).to.have.length(1, 'one standing vote per (rater, target, axis)');
      // A target longer than any seat id is bad input (422), not a storage error.
      expect((await call('GET', `/channels/guild/reputation/${'t'.repeat(3000)}/votes`, 'r1')).status).to.equal(422);
      expect((await ok('DELETE', '/channels/guild/reputation/tb', 'r3')).removed).to.equal(1);
    });

    it('refuses bad axes, values, self-votes, non-member and unknown targets, and long notes', async () => {
      const axis = await vote('r1', 'guild', 'ta', 'charm', 1);
      expect(axis.status).to.equal(400);
      expect(axis.body.detail).to.match(/axis must be one of trust, wisdom, thorough, helper/);
      expect((await vote('r1', 'guild', 'ta', 'trust', 2)).status).to.equal(400);
      expect((await vote('r1', 'guild', 'ta', 'trust', 0)).status).to.equal(400);
      expect((await vote('r1', 'guild', 'ta', 'trust', 1.5)).status, 'value is a strict integer').to.equal(422);
      const self = await vote('r1', 'guild', 'r1', 'trust', 1);
      expect(self.status).to.equal(400);
      expect(self.body.detail).to.match(/yourself/);
      const stranger = await vote('r1', 'guild', 'loner', 'trust', 1);
      expect(stranger.status).to.equal(400);
      expect(stranger.body.detail).to.match(/'loner' is not a member of 'guild'/);
      const ghost = await vote('r1', 'guild', 'nobody', 'trust', 1);
      expect(ghost.status).to.equal(404);
      expect(ghost.body.detail).to.equal("agent 'nobody' is not registered");
      const longNote = await vote('r1', 'guild', 'ta', 'trust', 1, 'x'.repeat(281));
      expect(longNote.status).to.equal(413);
      expect(longNote.body.detail).to.match(/^note is 281 characters; the cap is 280/);
      expect((await vote('r1', 'guild', 'ta', 'trust', 1, '😀'.repeat(280))).status, '280 code points fit').to.equal(200);
      expect((await call('PUT', '/channels/guild/reputation/ta', 'loner', { axis: 'trust', value: 1 })).status, 'voters are members').to.equal(403);
      expect((await ok('DELETE', '/channels/guild/reputation/ta?axis=trust', 'r1')).removed).to.equal(1);
    });

    it('withdraws one axis or all of them, and lists votes newest update first', async () => {
      await vote('r2', 'guild', 'td', 'trust', 1);
      await tick();
      await vote('r2', 'guild', 'td', 'wisdom', 1);
      await tick();
      await vote('r1', 'guild', 'td', 'helper', -1);
      const listed = await ok('GET', '/channels/guild/reputation/td/votes', 'r3');
      expect(listed.map((v: { rater: string; axis: string }) => `${v.rater}:${v.axis}`)).to.deep.equal(['r1:helper', 'r2:wisdom', 'r2:trust']);
      expect((await call('DELETE', '/channels/guild/reputation/td?axis=charm', 'r2')).status).to.equal(400);
      expect((await ok('DELETE', '/channels/guild/reputation/td?axis=wisdom', 'r2')).removed).to.equal(1);
      expect((await ok('DELETE', '/channels/guild/reputation/td', 'r2')).removed).to.equal(1);
      expect((await ok('DELETE', '/channels/guild/reputation/td', 'r2')).removed).to.equal(0);
      expect((await ok('DELETE', '/channels/guild/reputation/td', 'r1')).removed).to.equal(1);
    });
  });

  describe('boards', () => {
    before(async () => {
      // tc: +2 from two raters; td: +1 net from three raters; ta and tb: +1 from one rater each.
      for (const [rater, target, axis, value] of [
        ['r1', 'tc', 'trust', 1], ['r2', 'tc', 'wisdom', 1],
        ['r1', 'td', 'trust', 1], ['r2', 'td', 'trust', 1], ['r3', 'td', 'helper', -1],
        ['r1', 'tb', 'helper', 1], ['r2', 'ta', 'wisdom', 1],
      ] as const) expect((await vote(rater, 'guild', target, axis, value)).status).to.equal(200);
    });

    it('serves the unified dialect, ordered by score desc, raters desc, target asc', async () => {
      const board = await ok('GET', '/channels/guild/reputation', 'ta');
      expect(board.channel).to.equal('guild');
      expect(board.categories).to.deep.equal(['general', 'trust', 'wisdom', 'thorough', 'helper']);
      const rows = board.leaderboard as Row[];
      expect(rows.map((r) => r.target)).to.deep.equal(['tc', 'td', 'ta', 'tb']);
      expect(rows.map((r) => [r.score, r.raters])).to.deep.equal([[2, 2], [1, 3], [1, 1], [1, 1]]);
      const td = rows[1]!;
      expect(td.votes).to.deep.equal({ up: 2, down: 1 });
      expect(td.breakdown.trust).to.deep.equal({ score: 2, up: 2, down: 0, raters: 2 });
      expect(td.breakdown.helper).to.deep.equal({ score: -1, up: 0, down: 1, raters: 1 });
      expect(td.breakdown.general).to.deep.equal({ score: 0, up: 0, down: 0, raters: 0 });
      expect(td).to.not.have.property('channels');
    });

    it('counts message thumbs as `general`, and forgets them when the message is retracted', async () => {
      const m = await ok('POST', '/channels/guild/messages', 'tb', { body: 'a helpful answer', status: 'fyi' });
      await ok('PUT', `/channels/guild/messages/${m.id}/rating`, 'r1', { value: 1 });
      await ok('PUT', `/channels/guild/messages/${m.id}/rating`, 'r3', { value: 1 });
      let tb = ((await ok('GET', '/channels/guild/reputation', 'r1')).leaderboard as Row[]).find((r) => r.target === 'tb')!;
      expect(tb.breakdown.general).to.deep.equal({ score: 2, up: 2, down: 0, raters: 2 });
      expect(tb.score).to.equal(3);
      expect(tb.raters).to.equal(2, 'r1 counted once across categories');
      await ok('POST', `/channels/guild/messages/${m.id}/retract`, 'tb', {});
      tb = ((await ok('GET', '/channels/guild/reputation', 'r1')).leaderboard as Row[]).find((r) => r.target === 'tb')!;
      expect(tb.breakdown.general.up).to.equal(0);
      expect(tb.score).to.equal(1);
    });

    it('serves a hub-wide board whose rows count their channels', async () => {
      await vote('r1', 'annex', 'ta', 'trust', 1);
      const board = await ok('GET', '/reputation', 'loner');
      expect(board.channel).to.equal(null);
      const ta = (board.leaderboard as Row[]).find((r) => r.target === 'ta')!;
      expect(ta.channels).to.equal(2);
      expect(ta.score).to.equal(2);
      expect((board.leaderboard as Row[]).find((r) => r.target === 'tc')!.channels).to.equal(1);
      const order = (board.leaderboard as Row[]).map((r) => [r.score, r.raters, r.target] as const);
      const sorted = [...order].sort((a, b) => b[0] - a[0] || b[1] - a[1] || (a[2] < b[2] ? -1 : 1));
      expect(order).to.deep.equal(sorted);
      expect((await call('GET', '/channels/guild/reputation', 'loner')).status, 'a channel board is for members').to.equal(403);
    });

    it('withdraws a seat’s votes in a channel when it leaves', async () => {
      await ok('POST', '/channels/annex/join', 'r3', {});
      await vote('r3', 'annex', 'ta', 'helper', 1);
      expect(((await ok('GET', '/channels/annex/reputation', 'r1')).leaderboard as Row[]).find((r) => r.target === 'ta')!.raters).to.equal(2);
      await ok('POST', '/channels/annex/leave', 'r3', {});
      const ta = ((await ok('GET', '/channels/annex/reputation', 'r1')).leaderboard as Row[]).find((r) => r.target === 'ta')!;
      expect(ta.raters).to.equal(1);
      expect(ta.breakdown.helper.up).to.equal(0);
      expect(await ok('GET', '/channels/annex/reputation/ta/votes', 'r1')).to.have.length(1);
    });
  });

  it('limits message ratings to 30 a minute per rater', async () => {
    await ok('POST', '/channels/solo/join', 'loner', {});
    const m = await ok('POST', '/channels/solo/messages', 'r1', { body: 'rate me a lot', status: 'fyi' });
    for (let i = 0; i < 30; i++) await ok('PUT', `/channels/solo/messages/${m.id}/rating`, 'loner', { value: i % 2 ? 1 : -1 });
    const refused = await call('PUT', `/channels/solo/messages/${m.id}/rating`, 'loner', { value: 1 });
    expect(refused.status).to.equal(429);
    expect(refused.body.detail).to.match(/^rating budget exhausted \(30\/min\)/);
  });
});
