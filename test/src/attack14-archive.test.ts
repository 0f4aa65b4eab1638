/**
 * Attack on issue 14 item 1 (session archive): a session id is any string up to 256 characters, and
 * the account's archive marks were listed with the range `[account] .. [account, '\uffff']`, which
 * leaves out every id starting with a character outside the Basic Multilingual Plane (an emoji: its
 * UTF-8 bytes sort above U+FFFF's). Such a session was archived (POST answered archived: true) but
 * stayed in turn listings, was missing from `archived_only=true` and from `archived_sessions`.
 */
import { expect } from 'chai';
import { createAccount } from './helpers/accounts.js';
import { HistoryGateway } from './helpers/history.js';

type Listing = { items: Array<{ run_id: string; session_id: string; archived?: boolean }>; archived_sessions: number };

describe('attack14: archive marks of sessions whose id starts outside the BMP', function () {
  this.timeout(600_000);
  const gw = new HistoryGateway();
  let mallory = '';
  before(async () => {
    await gw.boot();
    mallory = await createAccount(gw.k, 'mallory');
    await gw.upload(mallory);
  });
  after(() => gw.stop());

  const list = async (query: string): Promise<Listing> => {
    const res = await gw.k.inject({ url: `/api/gateway/runs?${query}`, token: mallory });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Listing>();
  };

  for (const session of ['\u{1F600} chat', '\uffff\uffffend', 'plain-id']) {
    it(`an archived session ${JSON.stringify(session)} leaves turn listings, is listed by archived_only and counted`, async () => {
      const turn = await gw.turn(session, { prompt: 'hi', response: 'hello' }, mallory);
      const before = await list('root_only=true');
      const res = await gw.k.inject({ method: 'POST', url: `/api/gateway/sessions/${encodeURIComponent(session)}/archive`, token: mallory });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<{ archived: boolean }>().archived).to.equal(true);
      const turns = await list('root_only=true');
      expect(turns.items.map((r) => r.run_id), 'an archived session leaves the turn listing').to.not.include(turn.run_id);
      expect(turns.archived_sessions).to.equal(before.archived_sessions + 1);
      const archived = await list('root_only=true&archived_only=true');
      const row = archived.items.find((r) => r.run_id === turn.run_id);
      expect(row, 'archived_only lists it').to.not.equal(undefined);
      expect(row!.archived).to.equal(true);
    });
  }

  it("another account's archived sessions (an account whose name extends this one's) are never counted or listed", async () => {
    const other = await createAccount(gw.k, 'mallory2');
    await gw.upload(other);
    const before = await list('root_only=true&archived_only=true');
    for (const session of ['\u{1F600} theirs', 'theirs']) {
      await gw.turn(session, { prompt: 'hi', response: 'hello' }, other);
      const res = await gw.k.inject({ method: 'POST', url: `/api/gateway/sessions/${encodeURIComponent(session)}/archive`, token: other });
      expect(res.statusCode, res.body).to.equal(200);
    }
    const after = await list('root_only=true&archived_only=true');
    expect(after.archived_sessions).to.equal(before.archived_sessions);
    expect(after.items.map((r) => r.run_id)).to.deep.equal(before.items.map((r) => r.run_id));
  });
});
