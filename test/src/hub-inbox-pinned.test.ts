import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

// Obligations stay pinned in `/inbox` after an ack (hub-protocol.md §8.1 B1) until the seat answers,
// declines, replies or the thread closes; once read they come back with `redelivery: true` and no body.

interface Env {
  id: string;
  redelivery: boolean;
  body: string | null;
  data: unknown;
}

describe('hub inbox: pinned obligations', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let keys: Record<'op' | 'alice' | 'bob' | 'carol' | 'dan', string>;

  const ok = async (method: string, url: string, who: string, payload?: unknown) => {
    const res = await hub.call(method, url, who, payload);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  };
  const post = (who: string, channel: string, payload: Record<string, unknown>): Promise<{ id: string; seq: number }> =>
    ok('POST', `/channels/${channel}/messages`, who, { title: 't', body: 'b', ...payload });
  const inbox = async (who: string): Promise<Env[]> => ok('GET', '/inbox', who);
  const ackAll = async (who: string, channel: string) => {
    const info = await ok('GET', `/channels/${channel}/messages?since=0&limit=1000`, who);
    const head = Math.max(0, ...info.map((m: { seq: number }) => m.seq));
    await ok('POST', '/inbox/ack', who, { cursors: { [channel]: head } });
  };
  const find = async (who: string, id: string) => (await inbox(who)).find((e) => e.id === id);
  const read = (who: string, channel: string, id: string) => ok('GET', `/channels/${channel}/messages/${id}`, who);

  before(async () => {
    hub = await startHub();
    keys = await hub.seats(['op', 'alice', 'bob', 'carol', 'dan'] as const, ['op']);
  });
  after(async () => hub?.stop());

  it("the reference's worked example: an ack keeps the ask, a read redelivers it bodiless, an answer releases it; a bystander is not pinned", async () => {
    await hub.room('proj', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'proj', { status: 'open', to: ['bob'], asks: [{ id: '1', text: 'ship?' }] });
    await ackAll(keys.bob, 'proj');
    const acked = await find(keys.bob, m.id);
    expect(acked, 'still in bob\'s inbox after the ack').to.not.equal(undefined);
    expect(acked!.redelivery).to.equal(false);
    expect(acked!.body).to.equal('b');

    await read(keys.bob, 'proj', m.id);
    await ackAll(keys.bob, 'proj');
    const again = await find(keys.bob, m.id);
    expect(again).to.include({ redelivery: true, body: null, data: null });

    expect(await find(keys.carol, m.id), 'carol sees it once through her cursor').to.not.equal(undefined);
    await ackAll(keys.carol, 'proj');
    expect(await find(keys.carol, m.id), 'addressed to an available bob: not pinned for carol').to.equal(undefined);

    await post(keys.bob, 'proj', { status: 'reply', reply_to: m.id, answers: ['1'] });
    expect(await find(keys.bob, m.id), 'answered: released').to.equal(undefined);
  });

  it('a decline releases the addressee as an answer does', async () => {
    await hub.room('decl', keys.alice, [keys.bob]);
    const m = await post(keys.alice, 'decl', { status: 'open', to: ['bob'], asks: [{ id: 'd', text: 'yours?' }] });
    await ackAll(keys.bob, 'decl');
    expect(await find(keys.bob, m.id)).to.not.equal(undefined);
    await post(keys.bob, 'decl', { status: 'reply', reply_to: m.id, declines: ['d'] });
    expect(await find(keys.bob, m.id)).to.equal(undefined);
  });

  it('an addressee stays pinned through a read, and is released by any reply or by the asker closing the thread', async () => {
    await hub.room('addr', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'addr', { status: 'blocked', to: ['bob', 'carol'] });
    await read(keys.bob, 'addr', m.id);
    await ackAll(keys.bob, 'addr');
    await ackAll(keys.carol, 'addr');
    expect(await find(keys.bob, m.id), 'a bare read does not unpin an addressee').to.include({ redelivery: true });
    await post(keys.bob, 'addr', { status: 'reply', reply_to: m.id, body: 'looking' });
    expect(await find(keys.bob, m.id), 'a plain reply releases bob').to.equal(undefined);
    expect(await find(keys.carol, m.id), 'carol still owes it').to.not.equal(undefined);
    await post(keys.alice, 'addr', { status: 'resolved', reply_to: m.id, body: 'unblocked' });
    expect(await find(keys.carol, m.id), 'closed by its asker').to.equal(undefined);
  });

  it('a seat named only by an ask is released once no pending ask names it', async () => {
    await hub.room('perask', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'perask', { status: 'open', asks: [{ id: 'pb', text: 'bob?', to: ['bob'] }, { id: 'pc', text: 'carol?', to: ['carol'] }] });
    await ackAll(keys.bob, 'perask');
    await ackAll(keys.carol, 'perask');
    expect(await find(keys.bob, m.id)).to.not.equal(undefined);
    await post(keys.carol, 'perask', { status: 'reply', reply_to: m.id, answers: ['pb'] });
    expect(await find(keys.bob, m.id), "carol answered bob's ask: no pending ask names bob").to.equal(undefined);
    expect(await find(keys.carol, m.id), 'carol answered, so carol replied: released').to.equal(undefined);
  });

  it('a broadcast stays pinned after an ack until the seat reads it or the thread closes', async () => {
    await hub.room('bcast', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'bcast', { status: 'open', body: 'anyone?' });
    await ackAll(keys.bob, 'bcast');
    await ackAll(keys.carol, 'bcast');
    expect(await find(keys.bob, m.id)).to.not.equal(undefined);
    await read(keys.bob, 'bcast', m.id);
    expect(await find(keys.bob, m.id), 'read: unpinned').to.equal(undefined);
    expect(await find(keys.carol, m.id)).to.not.equal(undefined);
    await post(keys.bob, 'bcast', { status: 'reply', reply_to: m.id, body: 'me' });
    expect(await find(keys.carol, m.id), 'an unaddressed question is discharged by any reply from another seat').to.equal(undefined);
  });

  it('falls back to broadcast pinning when no addressee is still a member', async () => {
    await hub.room('gone', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'gone', { status: 'open', to: ['bob'] });
    await ackAll(keys.carol, 'gone');
    expect(await find(keys.carol, m.id), 'bob is available').to.equal(undefined);
    await ok('POST', '/channels/gone/leave', keys.bob, {});
    expect(await find(keys.carol, m.id), 'bob left: pinned for the room').to.not.equal(undefined);
  });

  it("directive debts: an operator's fyi and a peer's reply oblige the addressee; a peer's fyi and a reply to the seat's own message do not", async () => {
    await hub.room('dir', keys.alice, [keys.bob, keys.op]);
    const opFyi = await post(keys.op, 'dir', { status: 'fyi', to: ['bob'], body: 'read the runbook' });
    const peerReply = await post(keys.alice, 'dir', { status: 'reply', reply_to: opFyi.id, to: ['bob'], body: 'please confirm' });
    const peerFyi = await post(keys.alice, 'dir', { status: 'fyi', to: ['bob'], body: 'fyi only' });
    const bobs = await post(keys.bob, 'dir', { status: 'fyi', body: 'my note' });
    const onBobs = await post(keys.alice, 'dir', { status: 'reply', reply_to: bobs.id, to: ['bob'], body: 'noted' });
    await read(keys.bob, 'dir', opFyi.id);
    await ackAll(keys.bob, 'dir');
    const served = (await inbox(keys.bob)).map((e) => e.id);
    expect(served).to.include.members([opFyi.id, peerReply.id]);
    expect(served).to.not.include.members([peerFyi.id, onBobs.id]);
    expect(await find(keys.bob, opFyi.id), 'a read debt is redelivered without its body').to.include({ redelivery: true, body: null });
    await post(keys.bob, 'dir', { status: 'reply', reply_to: opFyi.id, body: 'done' });
    await post(keys.bob, 'dir', { status: 'reply', reply_to: peerReply.id, body: 'confirmed' });
    await ackAll(keys.bob, 'dir');
    const after = (await inbox(keys.bob)).map((e) => e.id);
    expect(after).to.not.include.members([opFyi.id, peerReply.id]);
  });

  it('redelivery is false for a read row that obliges nothing', async () => {
    await hub.room('plain', keys.alice, [keys.dan]);
    const m = await post(keys.alice, 'plain', { status: 'fyi', body: 'just news' });
    await read(keys.dan, 'plain', m.id);
    const env = await find(keys.dan, m.id);
    expect(env, 'still unread by cursor').to.include({ redelivery: false, body: null });
  });

  it("a closed thread serves no pending asks, and pins nobody", async () => {
    await hub.room('shut', keys.alice, [keys.bob]);
    const m = await post(keys.alice, 'shut', { status: 'open', to: ['bob'], asks: [{ id: 'x', text: 'still needed?' }] });
    await post(keys.alice, 'shut', { status: 'resolved', reply_to: m.id, body: 'no longer needed' });
    const env = await find(keys.bob, m.id) as unknown as { pending_asks: string[]; your_pending_asks: string[] };
    expect(env.pending_asks, 'served through the cursor flow, closed').to.deep.equal([]);
    expect(env.your_pending_asks).to.deep.equal([]);
    await ackAll(keys.bob, 'shut');
    expect(await find(keys.bob, m.id)).to.equal(undefined);
  });

  it("the reporting delegate owes the operators' unaddressed lines, and its evidenced resolve settles an operator's question", async () => {
    await hub.room('report', keys.alice, [keys.op, keys.dan, keys.carol]);
    await ok('PUT', '/admin/agents/dan/mission', hub.kernel.adminToken, { mission: 'report on the hub' });
    const grant = await hub.call('PUT', '/admin/delegation', hub.kernel.adminToken, { agent_id: 'dan', powers: ['reporting'], ttl_seconds: 3600 });
    expect(grant.status, JSON.stringify(grant.body)).to.equal(200);
    const line = await post(keys.op, 'report', { status: 'fyi', body: 'status by friday' });
    await ackAll(keys.dan, 'report');
    await ackAll(keys.carol, 'report');
    expect(await find(keys.dan, line.id), "an operator's unaddressed line is the reporter's debt").to.not.equal(undefined);
    expect(await find(keys.carol, line.id), 'not a plain seat\'s').to.equal(undefined);

    const q = await post(keys.op, 'report', { status: 'open', to: ['carol'], body: 'is the migration done?' });
    await ackAll(keys.carol, 'report');
    expect(await find(keys.carol, q.id)).to.not.equal(undefined);
    await post(keys.dan, 'report', { status: 'resolved', reply_to: q.id, body: 'done, see the log', data: { settled_by: 'carol', evidence: ['fs:logs/migration.txt'] } });
    expect(await find(keys.carol, q.id), 'settled by the reporter with evidence').to.equal(undefined);
  });

  it('an ask naming several seats stays pending, and pins those who have not answered, until every one of them has', async () => {
    await hub.room('both', keys.alice, [keys.bob, keys.carol]);
    const m = await post(keys.alice, 'both', { status: 'open', asks: [{ id: 'both', text: 'do you both agree?', to: ['bob', 'carol'] }] });
    await post(keys.bob, 'both', { status: 'reply', reply_to: m.id, answers: ['both'] });
    await ackAll(keys.carol, 'both');
    await ackAll(keys.bob, 'both');
    expect(await find(keys.carol, m.id), 'carol has not answered yet').to.not.equal(undefined);
    expect(await find(keys.bob, m.id), 'bob answered').to.equal(undefined);
    let digest = await ok('GET', '/channels/both/digest', keys.alice);
    expect(digest.open_questions.map((q: { id: string }) => q.id)).to.deep.equal([m.id]);
    await post(keys.carol, 'both', { status: 'reply', reply_to: m.id, answers: ['both'] });
    await ackAll(keys.carol, 'both');
    expect(await find(keys.carol, m.id)).to.equal(undefined);
    digest = await ok('GET', '/channels/both/digest', keys.alice);
    expect(digest.decided.find((d: { id: string }) => d.id === m.id)).to.deep.include({ answered_by: ['bob', 'carol'] });
  });
});
