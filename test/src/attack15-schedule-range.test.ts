/**
 * Attack (issue 15): schedule instants past year 9999. `toISOString()` writes such an instant with a
 * signed six-digit year ("+010000-…"), which sorts BEFORE every four-digit year in the wake index
 * (ISO strings in key order): such an automation was read as due at every look, forever, and
 * `scheduler.batchSize` of them (a few accounts' worth) starved every other automation of the server.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { triggers } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

const FAR = '9999-12-31T23:00:00-12:00'; // 10000-01-01T11:00Z

describe('attack15: schedule instants outside the years 0000..9999', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann: ReturnType<typeof automationsApi>;
  let mal: ReturnType<typeof automationsApi>;

  before(async () => {
    // A small batch so a handful of hostile records fills it (the default 500 is three accounts' worth).
    k = await automationsKernel(clock, { scheduler: { batchSize: 2 } });
    const annToken = await createAccount(k, 'ann');
    const malToken = await createAccount(k, 'mal');
    await uploadBundleAs(k, annToken, 'echo', echoFlow);
    await uploadBundleAs(k, malToken, 'echo', echoFlow);
    ann = automationsApi(() => k, annToken);
    mal = automationsApi(() => k, malToken);
  });
  after(async () => k?.stop());

  const create = (api: ReturnType<typeof automationsApi>, requestId: string, trigger: Record<string, unknown>) =>
    api.call('POST', '/automations', { request_id: requestId, target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'hi' } }, trigger });

  it('refuses a start_at, until or once wall time whose instant falls outside UTC years 0000..9999 (422 naming the field)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ source_id: 'schedule', source_version: 1, config: { start_at: FAR, every: '1s' } }, 'trigger.config.start_at'],
      [{ source_id: 'schedule', source_version: 1, config: { start_at: '0000-01-01T00:00:00+01:00', every: '1d' } }, 'trigger.config.start_at'],
      [{ source_id: 'schedule', source_version: 1, config: { every: '1h', until: FAR } }, 'trigger.config.until'],
      [{ source_id: 'schedule', source_version: 2, config: { kind: 'once', at: '9999-12-31T23:59', time_zone: 'Etc/GMT+12' } }, 'trigger.config.at'],
    ];
    for (const [trigger, field] of cases) {
      const res = await create(mal, crypto.randomUUID(), trigger);
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json<{ detail: { reason_code: string; field: string } }>().detail).to.include({ reason_code: 'invalid_definition', field });
      const preview = await mal.call('POST', '/automations/schedule-preview', { trigger });
      expect(preview.statusCode, preview.body).to.equal(422);
    }
    // The bounds themselves are instants a schedule may name.
    const edge = await create(mal, crypto.randomUUID(), { source_id: 'schedule', source_version: 1, config: { start_at: '9999-12-31T23:59:59Z' } });
    expect(edge.statusCode, edge.body).to.equal(200);
  });

  it("one account's far-future schedules cannot starve another account's automations", async () => {
    for (let i = 0; i < 4; i++) await create(mal, `far-${i}`, { source_id: 'schedule', source_version: 1, config: { start_at: FAR, every: '1s' } });
    const id = await ann.create({ request_id: 'minutely', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'hi' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1m' } } });
    // Tick 0 is now: it fires at once unless the wake index keeps handing the scheduler mal's records.
    await ann.untilOccurrences(id, "ann's first occurrence to complete", (rows) => rows[0]?.status === 'completed', 30_000);
  });

  it('a stored config that reaches past year 9999 has no tick there (records kept before the bound was checked)', () => {
    const sources = new triggers.TriggerSources();
    const binding = { binding_id: 'b', source_id: 'schedule', source_version: 1, config: { start_at: '9999-12-31T23:59:58.000Z', anchor: '9999-12-31T23:59:58.000Z', every: '1s' } };
    const schedule = sources.schedule(binding as never)!;
    expect(schedule.tickAt(1)?.scheduled_at).to.equal('9999-12-31T23:59:59.000Z');
    expect(schedule.tickAt(2)).to.equal(null);
    const beyond = { ...binding, config: { start_at: '+010000-01-01T11:00:00.000Z', anchor: '+010000-01-01T11:00:00.000Z', every: '1s' } };
    const none = sources.schedule(beyond as never)!;
    expect(none.arm().exhausted).to.equal(true);
    expect(none.pending(none.arm())).to.equal(null);
    const daily = sources.normalise({ source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'Pacific/Kiritimati', start_at: '9999-12-30T00:00:00Z' } }, { nowMs: Date.now(), ownerZone: 'UTC' });
    const last = sources.schedule(daily)!;
    for (let t = 0; t < 5; t++) {
      const at = last.tickAt(t);
      if (at) expect(at.scheduled_at.startsWith('9999-'), at.scheduled_at).to.equal(true);
    }
  });
});
