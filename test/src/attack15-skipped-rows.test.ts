/**
 * Attack (issue 15): storage growth without a client. Under `policy.misfire: skip` the ticks that come
 * due while an occurrence is current are recorded skipped at once — one occurrence row per scheduler
 * step. An occurrence that waits for a person (ask_user) for days on an `every: 1s` schedule wrote a
 * row every second (86,400 a day per automation, 200 automations per account) with nobody calling.
 * Consecutive skipped ticks of one busy spell are now one row whose range grows.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, TestClock } from './helpers/automations-engine.js';
import { askUserFlow } from './helpers/flow-builder.js';

describe('attack15: skipped ticks while an occurrence waits', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    const token = await createAccount(k, 'ann');
    await uploadBundleAs(k, token, 'ask', askUserFlow());
    api = automationsApi(() => k, token);
  });
  after(async () => k?.stop());

  it('consecutive ticks skipped during one busy occurrence are one skipped row with the whole range (every tick still accounted for)', async () => {
    const id = await api.create({ request_id: 'asker', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1s' } }, policy: { misfire: 'skip' } });
    await api.untilOccurrences(id, 'occurrence 1 to wait for a person', (rows) => rows.length === 1 && ['running', 'waiting'].includes(rows[0]!.status));
    for (let step = 1; step <= 12; step++) {
      clock.advance(1_000);
      // Each second's tick is recorded skipped before the clock moves again.
      await api.untilOccurrences(id, `tick ${step} to be recorded skipped`, (rows) => rows.some((row) => row.status === 'skipped' && row.coalesced?.last_tick === step));
    }
    const rows = await api.occurrences(id);
    const skipped = rows.filter((row) => row.status === 'skipped');
    expect(skipped, JSON.stringify(rows.map((r) => [r.index, r.status, r.coalesced]))).to.have.length(1);
    expect(skipped[0]!.coalesced).to.deep.include({ first_tick: 1, last_tick: 12, reason: 'occurrence_running' });
    expect(skipped[0]!.coalesced!.missed_count).to.equal(12);
    expect(rows).to.have.length(2);
    // The summary still names the occurrence that ran as the last one.
    const summary = await api.summary(id);
    expect((summary.last_occurrence as { index: number }).index).to.equal(1);
  });
});
