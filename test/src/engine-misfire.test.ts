/**
 * Missed fires after downtime (issue 15 item 5): the kernel is stopped, the injected clock moves on
 * ten and a half minutes, and a new kernel on the same data dir follows each automation's misfire
 * policy — coalesce (one occurrence for the latest tick), skip (none, a skipped row with the
 * reason), all (each tick its own occurrence, one at a time, beyond scheduler.maxCatchUp the oldest
 * recorded skipped) — with every expected tick accounted for and no gap.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { accountedTicks, automationsApi, automationsKernel, echoFlow, TestClock, type OccurrenceRow } from './helpers/automations-engine.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

const MINUTE = 60_000;
const scheduler = { misfireGraceMs: 10_000, maxCatchUp: 3 };
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('engine: missed fires after downtime follow the misfire policy, every tick accounted for', function () {
  this.timeout(300_000);
  const clock = new TestClock();
  const data = tempDir();
  let k: TestKernel;
  let api: ReturnType<typeof automationsApi>;
  const ids: Record<'coalesce' | 'skip' | 'all', string> = { coalesce: '', skip: '', all: '' };

  before(async () => {
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler });
    const ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
    for (const misfire of ['coalesce', 'skip', 'all'] as const) {
      ids[misfire] = await api.create({
        request_id: `misfire-${misfire}`,
        title: `Misfire ${misfire}`,
        target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: misfire } },
        trigger: { source_id: 'schedule', source_version: 1, config: { every: '1m' } },
        policy: { misfire },
      });
      await api.untilOccurrences(ids[misfire], `tick 0 of ${misfire}`, (r) => r[0]?.status === 'completed');
    }
    await k.stop();
    // Down for 10.5 minutes: ticks 1..10 came due while no scheduler ran; tick 10 is 30 s late (beyond the 10 s grace).
    clock.advance(10 * MINUTE + 30_000);
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler });
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  const settled = (rows: OccurrenceRow[]) => rows.every((r) => ['completed', 'skipped'].includes(r.status));

  it('coalesce: one occurrence for the latest tick, coalesced {first_tick, last_tick, missed_count, reason}', async () => {
    const rows = await api.untilOccurrences(ids.coalesce, 'the coalesced occurrence', (r) => r.length === 2 && settled(r));
    expect(rows[0]!.status).to.equal('completed');
    expect(rows[0]!.trigger.summary).to.match(/tick 10$/);
    expect(rows[0]!.coalesced).to.deep.equal({ first_tick: 1, last_tick: 10, missed_count: 9, reason: 'server_down' });
    expect(accountedTicks(rows)).to.deep.equal(range(0, 10));
  });

  it('all: each missed tick is its own occurrence, one at a time, up to scheduler.maxCatchUp; older ones skipped with catch_up_limit', async () => {
    const rows = await api.untilOccurrences(ids.all, 'the caught-up occurrences', (r) => r.length === 5 && settled(r));
    const oldestFirst = [...rows].reverse();
    expect(oldestFirst.map((r) => r.status)).to.deep.equal(['completed', 'skipped', 'completed', 'completed', 'completed']);
    expect(oldestFirst[1]!.coalesced).to.deep.equal({ first_tick: 1, last_tick: 7, missed_count: 7, reason: 'catch_up_limit' });
    expect(oldestFirst.slice(2).map((r) => Number(/tick (\d+)$/.exec(r.trigger.summary)![1]))).to.deep.equal([8, 9, 10]);
    expect(oldestFirst.slice(2).every((r) => r.coalesced === null)).to.equal(true);
    // One at a time: each caught-up occurrence started after the previous one finished.
    for (let i = 3; i < oldestFirst.length; i++) expect(Date.parse(oldestFirst[i]!.fired_at)).to.be.at.least(Date.parse(oldestFirst[i - 1]!.finished_at!));
    expect(accountedTicks(rows)).to.deep.equal(range(0, 10));
  });
  it('skip: no occurrence; the missed ticks are one skipped row with the reason, and the next tick fires on time', async () => {
    let rows = await api.untilOccurrences(ids.skip, 'the skipped row', (r) => r.length === 2 && settled(r));
    expect(rows[0]).to.deep.include({ status: 'skipped', run_id: null, attempts: 0 });
    expect(rows[0]!.coalesced).to.deep.equal({ first_tick: 1, last_tick: 10, missed_count: 10, reason: 'server_down' });
    expect(accountedTicks(rows)).to.deep.equal(range(0, 10));
    clock.advance(30_000);
    rows = await api.untilOccurrences(ids.skip, 'tick 11 on time', (r) => r.length === 3 && settled(r));
    expect(rows[0]!.status).to.equal('completed');
    expect(rows[0]!.trigger.summary).to.match(/tick 11$/);
    expect(accountedTicks(rows)).to.deep.equal(range(0, 11));
  });

});

describe('engine: an occurrence whose run ended while no scheduler listened is reconciled at start', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  const data = tempDir();
  let k: TestKernel;
  after(async () => {
    await k?.stop();
    data.remove();
  });

  it('the run of a waiting occurrence is answered while the automations plugin is not loaded; the next start records it completed', async () => {
    k = await automationsKernel(clock, { dataDir: data.dir });
    const ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'ask', askUserFlow());
    const api = automationsApi(() => k, ann);
    const id = await api.create({ request_id: 'reconcile', title: 'Asker', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    await api.command(id, 'automation.run_now');
    const rows = await api.untilOccurrences(id, 'the occurrence to wait', (r) => r[0]?.status === 'waiting');
    const runId = rows[0]!.run_id!;
    await k.stop();

    k = await automationsKernel(clock, { dataDir: data.dir, withoutAutomations: true });
    const answer = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: 'answer-1', run_id: runId, type: 'resume', payload: { payload: { response: 'Ada' } } } });
    expect(answer.statusCode, answer.body).to.equal(200);
    await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: ann })).json<{ status: string }>().status, { what: 'the run to complete', ok: (s) => s === 'completed' });
    await k.stop();

    k = await automationsKernel(clock, { dataDir: data.dir });
    const done = await api.untilOccurrences(id, 'the occurrence to be reconciled', (r) => r[0]?.status === 'completed');
    expect(done[0]).to.deep.include({ run_id: runId, answer: 'Ada', attempts: 1 });
    expect((await api.summary(id)).current_occurrence).to.equal(null);
  });
});

describe('engine: no stampede after downtime (scheduler.maxAdmissionsPerSecond)', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  const data = tempDir();
  let k: TestKernel;
  after(async () => {
    await k?.stop();
    data.remove();
  });

  it('admissions held back by the limit stay due and all fire, each once, while the injected clock stands still', async () => {
    const scheduler = { maxAdmissionsPerSecond: 1 };
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler });
    const ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    const api = automationsApi(() => k, ann);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      ids.push(await api.create({ request_id: `herd-${n}`, title: `Herd ${n}`, target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'h' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1m' } } }));
    }
    for (const id of ids) await api.untilOccurrences(id, `tick 0 of ${id}`, (r) => r[0]?.status === 'completed');
    await k.stop();
    clock.advance(5 * MINUTE + 10_000);
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler });
    for (const id of ids) {
      const rows = await api.untilOccurrences(id, `the coalesced fire of ${id}`, (r) => r.length === 2 && r[0]!.status === 'completed');
      expect(rows[0]!.coalesced).to.deep.include({ first_tick: 1, last_tick: 5, missed_count: 4 });
    }
  });
});
