import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

// The digest's `decided` list as the reference computes it (hub-protocol.md §8.1 B2): a row per
// closed question and a row per `resolved` post; declines and the asker never answer;
// `self_resolved` only when the asker's `resolved` reply closed what was not discharged.

describe('hub digest: decided and self_resolved', function () {
  this.timeout(60_000);
  let hub: HubHarness;
  let keys: Record<'op' | 'ann' | 'bob' | 'cat', string>;

  const post = async (who: string, channel: string, payload: Record<string, unknown>) => {
    const res = await hub.call('POST', `/channels/${channel}/messages`, who, payload);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { id: string; seq: number; title: string; created_at: number };
  };
  const digest = async (channel: string) => {
    const res = await hub.call('GET', `/channels/${channel}/digest`, keys.ann);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };
  const row = (d: { decided: Array<{ id: string }> }, id: string) => d.decided.find((r) => r.id === id);

  before(async () => {
    hub = await startHub();
    keys = await hub.seats(['op', 'ann', 'bob', 'cat'] as const, ['op']);
  });
  after(async () => hub?.stop());

  it('a lone standalone resolved post is one decided row with resolved: true and nothing else', async () => {
    await hub.room('solo', keys.ann, [keys.bob]);
    const m = await post(keys.ann, 'solo', { status: 'resolved', title: 'we ship friday', body: 'decided in the call' });
    const d = await digest('solo');
    expect(d.decided).to.deep.equal([{ seq: m.seq, id: m.id, sender: 'ann', title: 'we ship friday', created_at: m.created_at, resolved: true }]);
    expect(d.counts).to.include({ decided_total: 1, decided_shown: 1, declined_asks: 0 });
  });

  it('every resolved reply adds its own row, also when the thread was already closed', async () => {
    await hub.room('many-resolved', keys.ann, [keys.bob, keys.cat]);
    const q = await post(keys.ann, 'many-resolved', { status: 'open', title: 'q', body: 'which db?', asks: [{ id: 'r1', text: 'which?' }] });
    const answer = await post(keys.bob, 'many-resolved', { status: 'reply', reply_to: q.id, body: 'lmdb', answers: ['r1'] });
    const first = await post(keys.ann, 'many-resolved', { status: 'resolved', reply_to: q.id, body: 'lmdb it is' });
    const second = await post(keys.cat, 'many-resolved', { status: 'resolved', reply_to: q.id, body: 'agreed' });
    const d = await digest('many-resolved');
    expect(d.decided.map((r: { id: string }) => r.id)).to.deep.equal([second.id, first.id, q.id]);
    expect(row(d, answer.id), 'a plain reply adds nothing').to.equal(undefined);
    expect(row(d, q.id)).to.deep.include({ answered_by: ['bob'] });
    expect(row(d, q.id), 'fully answered, then resolved by its asker: no self_resolved').to.not.have.property('self_resolved');
  });

  it('never counts a decline or the asker as an answerer', async () => {
    await hub.room('declines', keys.ann, [keys.bob, keys.cat]);
    const q = await post(keys.ann, 'declines', { status: 'open', title: 'q', body: 'two asks', asks: [{ id: 'd1', text: 'a?' }, { id: 'd2', text: 'b?' }] });
    await post(keys.bob, 'declines', { status: 'reply', reply_to: q.id, body: 'not mine', declines: ['d1'] });
    await post(keys.cat, 'declines', { status: 'reply', reply_to: q.id, body: 'b is yes', answers: ['d2'] });
    const d = await digest('declines');
    expect(row(d, q.id)).to.deep.include({ answered_by: ['cat'], declined_by: ['bob'], declined_asks: ['d1'] });
    expect(d.counts.declined_asks).to.equal(1);
  });

  it('without asks, answered_by is every non-asker who replied; the asker is never listed', async () => {
    await hub.room('no-asks', keys.ann, [keys.bob, keys.cat]);
    const q = await post(keys.ann, 'no-asks', { status: 'open', title: 'thoughts?', body: 'anyone' });
    expect((await digest('no-asks')).open_questions.map((o: { id: string }) => o.id), 'open until someone replies').to.deep.equal([q.id]);
    await post(keys.ann, 'no-asks', { status: 'reply', reply_to: q.id, body: 'bump' });
    expect((await digest('no-asks')).open_questions.map((o: { id: string }) => o.id), "the asker's own reply discharges nothing").to.deep.equal([q.id]);
    await post(keys.cat, 'no-asks', { status: 'reply', reply_to: q.id, body: 'looks fine' });
    await post(keys.bob, 'no-asks', { status: 'reply', reply_to: q.id, body: 'fine by me' });
    const d = await digest('no-asks');
    expect(d.open_questions).to.deep.equal([]);
    expect(row(d, q.id)).to.deep.equal({ seq: q.seq, id: q.id, sender: 'ann', title: 'thoughts?', created_at: q.created_at, answered_by: ['bob', 'cat'] });
  });

  it('self_resolved only when the asker closed a thread that was not discharged; an operator close gets no label', async () => {
    await hub.room('closing', keys.ann, [keys.bob, keys.op]);
    const own = await post(keys.ann, 'closing', { status: 'open', title: 'own', body: 'for bob', to: ['bob'], asks: [{ id: 's1', text: 'x?' }] });
    await post(keys.ann, 'closing', { status: 'resolved', reply_to: own.id, body: 'found it myself' });
    const ruled = await post(keys.bob, 'closing', { status: 'open', title: 'ruled', body: 'for ann', to: ['ann'], asks: [{ id: 's2', text: 'y?' }] });
    await post(keys.op, 'closing', { status: 'resolved', reply_to: ruled.id, body: 'settled by the operator' });
    const d = await digest('closing');
    expect(row(d, own.id)).to.deep.include({ answered_by: [], self_resolved: true });
    expect(row(d, ruled.id)).to.deep.include({ answered_by: [] });
    expect(row(d, ruled.id)).to.not.have.property('self_resolved');
    expect(d.open_questions).to.deep.equal([]);
  });

  it('a resolved reply from a bystander does not close a question; only fyi and reply rows add nothing', async () => {
    await hub.room('bystander', keys.ann, [keys.bob, keys.cat]);
    const q = await post(keys.ann, 'bystander', { status: 'open', title: 'q', body: 'for bob', to: ['bob'] });
    const closing = await post(keys.cat, 'bystander', { status: 'resolved', reply_to: q.id, body: 'I think it is done' });
    await post(keys.cat, 'bystander', { status: 'fyi', title: 'note', body: 'just so you know' });
    const d = await digest('bystander');
    expect(d.open_questions.map((o: { id: string }) => o.id)).to.deep.equal([q.id]);
    expect(d.decided.map((r: { id: string }) => r.id)).to.deep.equal([closing.id]);
  });

  it('counts an answer posted outside the thread, as the ask table records it', async () => {
    await hub.room('elsewhere', keys.ann, [keys.bob]);
    const q = await post(keys.ann, 'elsewhere', { status: 'open', title: 'q', body: 'one ask', asks: [{ id: 'e1', text: 'which port?' }] });
    await post(keys.bob, 'elsewhere', { status: 'fyi', body: '8080, by the way', answers: ['e1'] });
    expect(row(await digest('elsewhere'), q.id)).to.deep.include({ answered_by: ['bob'] });
  });
});
