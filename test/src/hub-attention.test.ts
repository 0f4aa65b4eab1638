import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

// `/owed` and `/desk` through HTTP: rows appear and disappear as asks are answered, consumed,
// declined, settled and retracted; the desk is for operators and reporting delegates only.

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('hub attention: /owed and /desk', function () {
  this.timeout(30_000);
  let k: TestKernel;
  const keys: Record<string, string> = {};

  async function call(method: string, url: string, token: string, payload?: unknown): Promise<Res> {
    const res = await k.inject({ method, url: `/hub${url}`, token, payload });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
  }
  async function ok(method: string, url: string, who: string, payload?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await call(method, url, keys[who]!, payload);
    expect(res.status, `${method} ${url} as ${who}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  }
  const post = (who: string, channel: string, payload: Record<string, unknown>) => ok('POST', `/channels/${encodeURIComponent(channel)}/messages`, who, payload);
  const owed = (who: string) => ok('GET', '/owed', who);

  before(async () => {
    k = await createTestKernel({ plugins: [hubPlugin] });
    for (const [id, extra] of [['op', { operator: true }], ['alice', {}], ['bob', {}], ['carol', {}], ['rex', { mission: 'report on the hub' }]] as const) {
      const res = await k.inject({ method: 'POST', url: '/hub/agents', token: k.adminToken, payload: { id, ...extra } });
      expect(res.statusCode, res.body).to.equal(200);
      keys[id] = JSON.parse(res.body).api_key;
    }
    await ok('POST', '/channels', 'alice', { name: 'ops', private: false });
    for (const who of ['bob', 'carol', 'op']) await ok('POST', '/channels/ops/join', who, {});
  });
  after(async () => k?.stop());

  it('serves the report shape with empty lists for a seat that owes nothing', async () => {
    const report = await owed('carol');
    expect(report).to.include.all.keys('charters', 'phases', 'to_answer', 'to_consume', 'to_close', 'waiting_on', 'counts', 'computed_at');
    expect(report.to_answer).to.deep.equal([]);
    expect(report.counts).to.deep.equal({ to_answer: 0, to_consume: 0, to_close: 0 });
    expect(report.computed_at).to.be.a('number');
  });

  it('routes asks to their addressees: the ask `to` wins over the message `to`', async () => {
    const m = await post('alice', 'ops', { title: 'release plan', body: 'two questions', status: 'open', to: ['bob'], asks: [{ id: 'a1', text: 'ship friday?' }, { id: 'a2', text: 'who signs?', to: ['carol'] }] });
    const bob = await owed('bob');
    expect(bob.to_answer).to.have.length(1);
    expect(bob.to_answer[0]).to.include({ channel: 'ops', id: m.id, seq: m.seq, sender: 'alice', title: 'release plan', escalated: false });
    expect(bob.to_answer[0].pending_asks).to.deep.equal(['a1', 'a2']);
    expect(bob.to_answer[0].asks_naming_you).to.deep.equal(['a1']);
    expect(bob.counts.to_answer).to.equal(1);
    const carol = await owed('carol');
    expect(carol.to_answer[0].asks_naming_you).to.deep.equal(['a2']);
    expect((await owed('op')).to_answer, 'not addressed, owes nothing').to.deep.equal([]);

    const alice = await owed('alice');
    expect(alice.to_answer, 'the asker never owes its own asks').to.deep.equal([]);
    expect(alice.waiting_on).to.deep.equal([
      { channel: 'ops', seq: m.seq, ask: 'a1', seat: 'bob', state: 'not-yet-acked' },
      { channel: 'ops', seq: m.seq, ask: 'a2', seat: 'carol', state: 'not-yet-acked' },
    ]);
    // An acknowledged cursor past the ask means the seat saw it and has not replied.
    await ok('POST', '/inbox/ack', 'bob', { cursors: { ops: m.seq } });
    const after = await owed('alice');
    expect(after.waiting_on.find((w: { seat: string }) => w.seat === 'bob').state).to.equal('acked-past-no-reply');
    expect(after.waiting_on.find((w: { seat: string }) => w.seat === 'carol').state).to.equal('not-yet-acked');
  });

  it('moves an answered ask to to_consume, drops it on consumes, and asks to close once all are discharged', async () => {
    const m = await post('alice', 'ops', { title: 'db choice', body: 'pick one', status: 'open', to: ['bob', 'carol'], asks: [{ id: 'b1', text: 'postgres?', to: ['bob'] }, { id: 'b2', text: 'budget?', to: ['carol'] }] });
    const answer = await post('bob', 'ops', { body: 'yes, postgres', status: 'reply', reply_to: m.id, answers: ['b1'] });
    expect((await owed('bob')).to_answer.map((r: { id: string }) => r.id)).to.not.include(m.id);

    let alice = await owed('alice');
    const row = alice.to_consume.find((r: { id: string }) => r.id === m.id);
    expect(row).to.deep.equal({
      channel: 'ops', id: m.id, seq: m.seq, title: 'db choice', your_asks: ['b1'], answered_by: 'bob',
      answer_id: answer.id, answer_seq: answer.seq, answer_created_at: answer.created_at,
    });
    expect(alice.waiting_on.filter((w: { seq: number }) => w.seq === m.seq).map((w: { ask: string }) => w.ask)).to.deep.equal(['b2']);
    expect(alice.to_close.map((r: { id: string }) => r.id), 'b2 still pending').to.not.include(m.id);

    await post('alice', 'ops', { body: 'noted', status: 'fyi', reply_to: answer.id, consumes: ['b1'] });
    alice = await owed('alice');
    expect(alice.to_consume.map((r: { id: string }) => r.id)).to.not.include(m.id);

    const decline = await post('carol', 'ops', { body: 'not mine to say', status: 'reply', reply_to: m.id, declines: ['b2'] });
    alice = await owed('alice');
    const close = alice.to_close.find((r: { id: string }) => r.id === m.id);
    expect(close).to.deep.include({ channel: 'ops', seq: m.seq, title: 'db choice', answered_by: 'carol', answered_at: decline.created_at, declined_asks: ['b2'], declined_by: ['carol'] });
    expect(alice.counts.to_close).to.equal(alice.to_close.length);
    expect(alice.to_consume.find((r: { id: string }) => r.id === m.id).your_asks, 'a decline is a discharge to take in too').to.deep.equal(['b2']);

    await post('alice', 'ops', { body: 'settled', status: 'resolved', reply_to: m.id });
    expect((await owed('alice')).to_close.map((r: { id: string }) => r.id)).to.not.include(m.id);
  });

  it('a retracted ask carries no obligation; a retracted answer reopens the ask', async () => {
    const m = await post('alice', 'ops', { title: 'doomed', body: 'will be retracted', status: 'open', to: ['bob'], asks: [{ id: 'c1', text: 'still there?' }] });
    expect((await owed('bob')).to_answer.map((r: { id: string }) => r.id)).to.include(m.id);
    await ok('POST', `/channels/ops/messages/${m.id}/retract`, 'alice', {});
    expect((await owed('bob')).to_answer.map((r: { id: string }) => r.id)).to.not.include(m.id);
    expect((await owed('alice')).waiting_on.map((w: { ask: string }) => w.ask)).to.not.include('c1');

    const q = await post('alice', 'ops', { title: 'second', body: 'answer me', status: 'open', to: ['bob'], asks: [{ id: 'c2', text: 'ok?' }] });
    const answer = await post('bob', 'ops', { body: 'ok', status: 'reply', reply_to: q.id, answers: ['c2'] });
    expect((await owed('alice')).to_consume.map((r: { answer_id: string }) => r.answer_id)).to.include(answer.id);
    await ok('POST', `/channels/ops/messages/${answer.id}/retract`, 'bob', {});
    expect((await owed('alice')).to_consume.map((r: { answer_id: string }) => r.answer_id)).to.not.include(answer.id);
    expect((await owed('bob')).to_answer.map((r: { id: string }) => r.id)).to.include(q.id);
  });

  it('in a direct channel an unaddressed ask is owed by the peer', async () => {
    const dm = await ok('POST', '/dms/carol/messages', 'bob', { body: 'quick one', asks: [{ id: 'd1', text: 'lunch?' }] });
    const carol = await owed('carol');
    const row = carol.to_answer.find((r: { id: string }) => r.id === dm.id);
    expect(row).to.include({ channel: 'dm:bob--carol', sender: 'bob' });
    expect(row.asks_naming_you).to.deep.equal(['d1']);
    expect((await owed('bob')).waiting_on.find((w: { ask: string }) => w.ask === 'd1')).to.include({ seat: 'carol', channel: 'dm:bob--carol' });
  });

  it('marks an ask waiting on a retired seat as retired', async () => {
    const reg = await k.inject({ method: 'POST', url: '/hub/agents', token: k.adminToken, payload: { id: 'dave' } });
    keys.dave = JSON.parse(reg.body).api_key;
    await ok('POST', '/channels/ops/join', 'dave', {});
    const m = await post('alice', 'ops', { title: 'for dave', body: 'x', status: 'open', to: ['dave'], asks: [{ id: 'f1', text: 'there?' }] });
    const retire = await k.inject({ method: 'POST', url: '/hub/agents/dave/retire', token: k.adminToken, payload: {} });
    expect(retire.statusCode, retire.body).to.equal(200);
    expect((await owed('alice')).waiting_on.find((w: { ask: string }) => w.ask === 'f1')).to.deep.equal({ channel: 'ops', seq: m.seq, ask: 'f1', seat: 'dave', state: 'retired' });
  });

  it('lists to_answer oldest first', async () => {
    const first = await post('carol', 'ops', { title: 'older', body: 'x', status: 'open', to: ['bob'], asks: [{ text: 'one?' }] });
    const second = await post('alice', 'ops', { title: 'newer', body: 'y', status: 'open', to: ['bob'], asks: [{ text: 'two?' }] });
    const ids = (await owed('bob')).to_answer.map((r: { id: string }) => r.id);
    expect(ids.indexOf(first.id)).to.be.greaterThan(-1);
    expect(ids.indexOf(first.id)).to.be.lessThan(ids.indexOf(second.id));
    const created = (await owed('bob')).to_answer.map((r: { created_at: number }) => r.created_at);
    expect(created).to.deep.equal([...created].sort((a: number, b: number) => a - b));
  });

  it('owes charter readings until they are read, and open phases to their steward', async () => {
    const before = await owed('bob');
    expect(before.charters.map((c: { scope: string }) => c.scope)).to.include.members(['hub', 'ops']);
    expect(before.charters.find((c: { scope: string }) => c.scope === 'ops')).to.include({ your_receipt: null, read_with: "read_charter(channel='ops')" });
    await ok('GET', '/charter?full=true', 'bob');
    await ok('GET', '/channels/ops/charter', 'bob');
    expect((await owed('bob')).charters).to.deep.equal([]);

    const phase = { track: 'release', current: 'build', next: 'ship', status: 'open', steward: 'bob' };
    await ok('PUT', `/channels/ops/store/${encodeURIComponent('phase:launch')}`, 'alice', { value: phase });
    const rows = (await owed('bob')).phases;
    expect(rows.map((p: { channel: string; key: string }) => [p.channel, p.key])).to.deep.equal([['ops', 'launch']]);
    expect((await owed('alice')).phases, 'only the steward owes it').to.deep.equal([]);
    await ok('PUT', `/channels/ops/store/${encodeURIComponent('phase:launch')}`, 'alice', { value: { ...phase, status: 'complete' } });
    expect((await owed('bob')).phases).to.deep.equal([]);
  });

  describe('/desk', () => {
    it('refuses seats that are neither operators nor reporting delegates', async () => {
      const res = await call('GET', '/desk', keys.bob!);
      expect(res.status).to.equal(403);
      expect(res.body.detail).to.equal('the desk is for operators and reporting delegates (whoami.delegations is the proof)');
    });

    it('lists open asks and unanswered open messages addressed to operators, oldest first, until answered', async () => {
      const ask = await post('alice', 'ops', { title: 'need approval', body: 'budget', status: 'open', to: ['op'], asks: [{ id: 'e1', text: 'approve the budget?' }] });
      const plain = await post('bob', 'ops', { title: 'please look', body: 'at the logs', status: 'open', to: ['op'] });
      let desk = await ok('GET', '/desk', 'op');
      expect(desk.viewer).to.equal('op');
      expect(desk.operators).to.deep.equal(['op']);
      expect(desk.satisfied).to.deep.equal([]);
      const mine = desk.rows.filter((r: { id: string }) => r.id === ask.id || r.id === plain.id);
      expect(mine.map((r: { id: string }) => r.id)).to.deep.equal([ask.id, plain.id]);
      expect(mine[0]).to.include({ kind: 'ask', operator: 'op', channel: 'ops', seq: ask.seq, ask: 'e1', what: 'approve the budget?', who_waits: 'alice' });
      expect(mine[0].age_minutes).to.equal(0);
      expect(mine[0].one_action).to.be.a('string').and.include(ask.id);
      expect(mine[1]).to.include({ kind: 'ask', operator: 'op', ask: null, what: 'please look', who_waits: 'bob' });
      expect(desk.counts).to.deep.equal({ rows: desk.rows.length, satisfied: 0 });
      const created = desk.rows.map((r: { created_at: number }) => r.created_at);
      expect(created).to.deep.equal([...created].sort((a: number, b: number) => a - b));

      await post('op', 'ops', { body: 'approved', status: 'reply', reply_to: ask.id, answers: ['e1'] });
      await post('op', 'ops', { body: 'looking', status: 'reply', reply_to: plain.id });
      desk = await ok('GET', '/desk', 'op');
      expect(desk.rows.map((r: { id: string }) => r.id)).to.not.include.members([ask.id, plain.id]);
    });

    it('drops retracted asks from the desk', async () => {
      const m = await post('carol', 'ops', { title: 'gone soon', body: 'x', status: 'open', to: ['op'], asks: [{ text: 'see this?' }] });
      expect((await ok('GET', '/desk', 'op')).rows.map((r: { id: string }) => r.id)).to.include(m.id);
      await ok('POST', `/channels/ops/messages/${m.id}/retract`, 'carol', {});
      expect((await ok('GET', '/desk', 'op')).rows.map((r: { id: string }) => r.id)).to.not.include(m.id);
    });

    it('opens to a seat holding a reporting delegation', async () => {
      expect((await call('GET', '/desk', keys.rex!)).status).to.equal(403);
      const grant = await k.inject({ method: 'PUT', url: '/hub/admin/delegation', token: k.adminToken, payload: { agent_id: 'rex', powers: ['reporting'], ttl_seconds: 3600, note: 'weekly report' } });
      expect(grant.statusCode, grant.body).to.equal(200);
      const desk = await ok('GET', '/desk', 'rex');
      expect(desk.viewer).to.equal('rex');
    });
  });
});
