/**
 * The tick math of the time trigger sources (reference gateway-surfaces §3.4): ticks numbered from
 * the anchor, calendar rules across daylight-saving changes (Europe/Paris and America/New_York),
 * month ends, weekdays, `count` and `until`, coalescing counts after downtime (exact and cheap), and
 * rearm after a pause that never catches up.
 */
import { expect } from 'chai';
import { IANAZone } from 'luxon';
import { triggers } from '@keel/plugin-automations';

const sources = new triggers.TriggerSources();
const NOW = Date.parse('2026-01-15T12:00:00Z');

/** The compiled schedule of a trigger, normalised at `nowMs` with the owner zone UTC. */
function scheduleOf(source: string, config: Record<string, unknown>, nowMs = NOW) {
  const [id, version] = source.split('@');
  const trigger = sources.normalise({ source_id: id, source_version: Number(version), config }, { nowMs, ownerZone: 'UTC' });
  return { trigger, schedule: sources.schedule(trigger)! };
}

/** The UTC ISO times of ticks 0..n-1. */
function firstTicks(schedule: triggers.TimeSchedule, n: number): string[] {
  return Array.from({ length: n }, (_, k) => schedule.tickAt(k)?.scheduled_at ?? 'none');
}

const ms = (iso: string) => Date.parse(iso);

describe('triggers: schedule@1 ticks (fixed UTC intervals)', () => {
  it('numbers ticks T_k = anchor + k·every from start_at, and stores start_at and anchor', () => {
    const { trigger, schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00+01:00', every: '90m' });
    expect(trigger.config).to.deep.equal({ start_at: '2025-12-31T23:00:00.000Z', anchor: '2025-12-31T23:00:00.000Z', every: '90m' });
    expect(firstTicks(schedule, 3)).to.deep.equal(['2025-12-31T23:00:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T02:00:00.000Z']);
    expect(schedule.arm()).to.deep.equal({ anchor: '2025-12-31T23:00:00.000Z', tick: 0, scheduled_count: 0, exhausted: false });
  });

  it('without every the only tick is start_at (one-shot), and start_at defaults to now', () => {
    const { trigger, schedule } = scheduleOf('schedule@1', {});
    expect(trigger.config).to.deep.equal({ start_at: new Date(NOW).toISOString(), anchor: new Date(NOW).toISOString() });
    expect(schedule.tickAt(0)?.at_ms).to.equal(NOW);
    expect(schedule.tickAt(1)).to.equal(null);
    const fired = schedule.advance(schedule.arm(), 0, 1);
    expect(fired.exhausted).to.equal(true);
    expect(schedule.pending(fired)).to.equal(null);
  });

  it('nextAfter is the smallest tick strictly after a time (a tick time itself gives the one after it)', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z', every: '1h' });
    const state = schedule.arm();
    expect(schedule.nextAfter(state, ms('2026-01-01T05:00:00Z'))?.tick).to.equal(6);
    expect(schedule.nextAfter(state, ms('2026-01-01T05:00:00.001Z'))?.tick).to.equal(6);
    expect(schedule.nextAfter(state, ms('2026-01-01T04:59:59.999Z'))?.tick).to.equal(5);
    expect(schedule.nextAfter(state, ms('2025-01-01T00:00:00Z'))?.tick).to.equal(0);
    // Never below the pending tick: a clock that went back does not fire a tick twice.
    expect(schedule.nextAfter({ ...state, tick: 10 }, ms('2026-01-01T05:00:00Z'))?.tick).to.equal(10);
  });

  it('due after downtime: the pending tick, the latest due tick, exact counts, and the first N ticks', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z', every: '10m' });
    let state = schedule.advance(schedule.arm(), 2, 3);
    expect(schedule.due(state, ms('2026-01-01T00:29:59Z'), 5)).to.equal(null);
    const due = schedule.due(state, ms('2026-01-01T01:05:00Z'), 2)!;
    expect(due.first).to.deep.include({ tick: 3, scheduled_at: '2026-01-01T00:30:00.000Z' });
    expect(due.latest).to.deep.include({ tick: 6, scheduled_at: '2026-01-01T01:00:00.000Z' });
    expect([due.due_count, due.missed_count]).to.deep.equal([4, 3]);
    expect(due.ticks.map((t) => t.tick)).to.deep.equal([3, 4]);
    // Coalesce: one admission for the latest; the next pending tick is the one after it.
    state = schedule.advance(state, due.latest.tick, 1);
    expect(state).to.deep.include({ tick: 7, scheduled_count: 4, exhausted: false });
    expect(schedule.pending(state)?.scheduled_at).to.equal('2026-01-01T01:10:00.000Z');
  });

  it('a year of downtime on a per-second rule: exact counts at once (no walk over the ticks)', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2000-01-01T00:00:00Z', every: '1s' });
    const due = schedule.due(schedule.arm(), ms('2030-01-01T00:00:00Z'), 3)!;
    const seconds = (ms('2030-01-01T00:00:00Z') - ms('2000-01-01T00:00:00Z')) / 1000;
    expect(due.latest.tick).to.equal(seconds);
    expect(due.due_count).to.equal(seconds + 1);
    expect(due.ticks).to.have.length(3);
  });

  it('count: eligible while fewer than count scheduled admissions; skipped ticks do not count', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z', every: '1h', count: 3 });
    let state = schedule.arm();
    state = schedule.advance(state, 0, 1);
    state = schedule.advance(state, 4, 0); // skip: ticks 1..4 handled, none admitted
    expect(state).to.deep.include({ tick: 5, scheduled_count: 1, exhausted: false });
    // The due listing never offers more ticks than admissions left.
    expect(schedule.due(state, ms('2026-01-02T00:00:00Z'), 10)!.ticks).to.have.length(2);
    state = schedule.advance(state, 5, 1);
    state = schedule.advance(state, 6, 1);
    expect(state).to.deep.include({ scheduled_count: 3, exhausted: true });
    expect(schedule.pending(state)).to.equal(null);
    expect(schedule.nextAfter(state, ms('2026-01-01T00:00:00Z'))).to.equal(null);
    expect(schedule.due(state, ms('2027-01-01T00:00:00Z'), 5)).to.equal(null);
  });

  it('until is exclusive: the latest due tick is capped at the last tick before it', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z', every: '1h', until: '2026-01-01T03:00:00Z' });
    expect(firstTicks(schedule, 4)).to.deep.equal(['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z', 'none']);
    const due = schedule.due(schedule.arm(), ms('2026-06-01T00:00:00Z'), 10)!;
    expect([due.latest.tick, due.due_count]).to.deep.equal([2, 3]);
    expect(schedule.advance(schedule.arm(), 2, 1).exhausted).to.equal(true);
  });

  it('rearm after a pause: the first tick strictly after now, never a catch-up; a passed one-shot never fires', () => {
    const { schedule } = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z', every: '1h' });
    const paused = schedule.advance(schedule.arm(), 1, 2);
    const resumed = schedule.rearm(paused, ms('2026-01-03T10:30:00Z'));
    expect(resumed).to.deep.include({ tick: 59, scheduled_count: 2, exhausted: false });
    expect(schedule.due(resumed, ms('2026-01-03T10:30:00Z'), 5)).to.equal(null);
    expect(schedule.pending(resumed)?.scheduled_at).to.equal('2026-01-03T11:00:00.000Z');

    const once = scheduleOf('schedule@1', { start_at: '2026-01-01T00:00:00Z' }).schedule;
    expect(once.rearm(once.arm(), ms('2026-01-02T00:00:00Z'))).to.deep.include({ exhausted: true });
  });
});

describe('triggers: schedule@2 calendar rules across daylight saving', () => {
  it('Europe/Paris spring forward (2026-03-29): a nonexistent 02:30 runs at 03:30 that day', () => {
    const { schedule } = scheduleOf('schedule@2', { kind: 'daily', at: '02:30', time_zone: 'Europe/Paris', start_at: '2026-03-27T12:00:00Z' });
    expect(firstTicks(schedule, 3)).to.deep.equal([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:30:00.000Z', // 03:30 CEST (02:30 does not exist)
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('Europe/Paris fall back (2026-10-25): a repeated 02:30 runs once, at its first instant', () => {
    const { schedule } = scheduleOf('schedule@2', { kind: 'daily', at: '02:30', time_zone: 'Europe/Paris', start_at: '2026-10-24T12:00:00Z' });
    expect(firstTicks(schedule, 2)).to.deep.equal(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    // Between the two 02:30s of that night exactly one tick is due.
    const due = schedule.due(schedule.arm(), ms('2026-10-25T01:45:00Z'), 5)!;
    expect(due.due_count).to.equal(1);
    const after = schedule.advance(schedule.arm(), due.latest.tick, 1);
    expect(schedule.due(after, ms('2026-10-25T23:00:00Z'), 5)).to.equal(null);
  });

  it('Europe/Paris: a daily 09:00 keeps its wall time across both changes (UTC moves by an hour)', () => {
    const { schedule } = scheduleOf('schedule@2', { kind: 'daily', at: '09:00', time_zone: 'Europe/Paris', start_at: '2026-03-28T00:00:00Z' });
    expect(firstTicks(schedule, 2)).to.deep.equal(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z']);
    const autumn = scheduleOf('schedule@2', { kind: 'daily', at: '09:00', time_zone: 'Europe/Paris', start_at: '2026-10-24T00:00:00Z' }).schedule;
    expect(firstTicks(autumn, 2)).to.deep.equal(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z']);
  });

  it('America/New_York: 02:30 on 2026-03-08 runs at 03:30 EDT; 01:30 on 2026-11-01 runs once', () => {
    const spring = scheduleOf('schedule@2', { kind: 'daily', at: '02:30', time_zone: 'America/New_York', start_at: '2026-03-07T12:00:00Z' }).schedule;
    expect(firstTicks(spring, 2)).to.deep.equal(['2026-03-08T07:30:00.000Z', '2026-03-09T06:30:00.000Z']);
    const autumn = scheduleOf('schedule@2', { kind: 'daily', at: '01:30', time_zone: 'America/New_York', start_at: '2026-10-31T12:00:00Z' }).schedule;
    expect(firstTicks(autumn, 2)).to.deep.equal(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(autumn.due(autumn.arm(), ms('2026-11-01T06:45:00Z'), 5)!.due_count).to.equal(1);
  });

  it('once at a wall time: YYYY-MM-DDTHH:MM in the zone, shifted forward in a gap', () => {
    const { trigger, schedule } = scheduleOf('schedule@2', { kind: 'once', at: '2026-03-29T02:30', time_zone: 'Europe/Paris' });
    expect(trigger.config).to.deep.include({ start_at: '2026-03-29T01:30:00.000Z', anchor: '2026-03-29T01:30:00.000Z', at: '2026-03-29T02:30' });
    expect(firstTicks(schedule, 2)).to.deep.equal(['2026-03-29T01:30:00.000Z', 'none']);
  });

  it('monthly on day 31 runs on the last day of shorter months; "last" follows leap years', () => {
    const day31 = scheduleOf('schedule@2', { kind: 'monthly', day: 31, at: '09:00', time_zone: 'Europe/Paris', start_at: '2026-01-01T00:00:00Z' }).schedule;
    expect(firstTicks(day31, 4)).to.deep.equal(['2026-01-31T08:00:00.000Z', '2026-02-28T08:00:00.000Z', '2026-03-31T07:00:00.000Z', '2026-04-30T07:00:00.000Z']);
    const last = scheduleOf('schedule@2', { kind: 'monthly', day: 'last', at: '23:30', time_zone: 'America/New_York', start_at: '2028-01-15T00:00:00Z' }).schedule;
    expect(firstTicks(last, 2)).to.deep.equal(['2028-02-01T04:30:00.000Z', '2028-03-01T04:30:00.000Z']); // Jan 31 and Feb 29 23:30 EST
  });

  it('weekly on chosen days, in Monday…Sunday order whatever order they were given in', () => {
    // 2026-01-17 is a Saturday.
    const { trigger, schedule } = scheduleOf('schedule@2', { kind: 'weekly', days: ['fri', 'mon', 'wed'], at: '08:00', time_zone: 'Europe/Paris', start_at: '2026-01-17T00:00:00Z' });
    expect(trigger.config.days).to.deep.equal(['mon', 'wed', 'fri']);
    expect(firstTicks(schedule, 4)).to.deep.equal(['2026-01-19T07:00:00.000Z', '2026-01-21T07:00:00.000Z', '2026-01-23T07:00:00.000Z', '2026-01-26T07:00:00.000Z']);
    // Ticks are contiguous: ten weeks later is tick 30.
    expect(schedule.nextAfter(schedule.arm(), ms('2026-03-29T00:00:00Z'))).to.deep.include({ tick: 30, scheduled_at: '2026-03-30T06:00:00.000Z' });
  });

  it('kind every is a fixed UTC interval whatever the zone', () => {
    const { schedule } = scheduleOf('schedule@2', { kind: 'every', every: '1d', time_zone: 'Europe/Paris', start_at: '2026-03-28T08:00:00Z' });
    expect(firstTicks(schedule, 2)).to.deep.equal(['2026-03-28T08:00:00.000Z', '2026-03-29T08:00:00.000Z']);
  });

  it('count and until end a calendar rule', () => {
    const counted = scheduleOf('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'UTC', start_at: '2026-01-01T00:00:00Z', count: 2 }).schedule;
    let state = counted.advance(counted.arm(), 0, 1);
    state = counted.advance(state, 1, 1);
    expect(state.exhausted).to.equal(true);
    const bounded = scheduleOf('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'UTC', start_at: '2026-01-01T00:00:00Z', until: '2026-01-03T08:00:00Z' }).schedule;
    expect(firstTicks(bounded, 3)).to.deep.equal(['2026-01-01T08:00:00.000Z', '2026-01-02T08:00:00.000Z', 'none']);
    expect(bounded.due(bounded.arm(), ms('2027-01-01T00:00:00Z'), 5)!.due_count).to.equal(2);
  });

  it('coalescing counts after thirty years of downtime are exact and cost a few zone lookups', () => {
    const calls = { n: 0 };
    const offset = IANAZone.prototype.offset;
    IANAZone.prototype.offset = function (this: IANAZone, ts: number) {
      calls.n++;
      return offset.call(this, ts);
    };
    try {
      for (const [config, expected] of [
        [{ kind: 'daily', at: '09:00' }, 10_958],
        [{ kind: 'weekly', days: ['mon', 'thu'], at: '09:00' }, 3131],
        [{ kind: 'monthly', day: 31, at: '09:00' }, 360],
      ] as const) {
        const { schedule } = scheduleOf('schedule@2', { ...config, time_zone: 'Europe/Paris', start_at: '1996-01-01T00:00:00Z' });
        calls.n = 0;
        const due = schedule.due(schedule.arm(), ms('2026-01-01T00:00:00Z'), 3)!;
        expect(due.due_count, config.kind).to.equal(expected);
        expect(due.ticks).to.have.length(3);
        expect(calls.n, `${config.kind}: zone lookups`).to.be.within(1, 199);
      }
    } finally {
      IANAZone.prototype.offset = offset;
    }
  });
});
