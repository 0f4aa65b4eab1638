/**
 * The constant-time tick search checked against a plain walk over the ticks: for calendar rules in
 * zones with unusual daylight-saving rules (half-hour shifts, midnight shifts, a skipped day), every
 * tick is later than the one before (the same instant only for a day the zone skipped entirely), `nextAfter(t)` is the first tick after t, and `due`'s
 * latest tick is the last one at or before t.
 */
import { expect } from 'chai';
import { triggers } from '@keel/plugin-automations';

const sources = new triggers.TriggerSources();

/** Deterministic pseudo-random numbers (a fixed seed: the same times on every run). */
function lcg(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const ZONES = ['Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago', 'Pacific/Apia', 'UTC'];
const RULES: Array<Record<string, unknown>> = [
  { kind: 'daily', at: '02:30' },
  { kind: 'daily', at: '00:00' },
  { kind: 'daily', at: '23:45' },
  { kind: 'weekly', days: ['mon', 'thu', 'sun'], at: '01:30' },
  { kind: 'monthly', day: 31, at: '02:15' },
  { kind: 'monthly', day: 'last', at: '00:00' },
];

describe('triggers: calendar tick search against a walk over the ticks', function () {
  this.timeout(120_000);

  for (const zone of ZONES) {
    it(`${zone}: ticks increase (strictly, but for a skipped day); nextAfter and due agree with the walk`, () => {
      const random = lcg(zone.length * 7919);
      for (const rule of RULES) {
        const start = '2011-01-01T00:00:00Z';
        const binding = sources.normalise({ source_id: 'schedule', source_version: 2, config: { ...rule, time_zone: zone, start_at: start } }, { nowMs: 0, ownerZone: 'UTC' });
        const schedule = sources.schedule(binding)!;
        const ticks: number[] = [];
        const endMs = Date.parse('2013-01-01T00:00:00Z');
        for (let k = 0; ; k++) {
          const at = schedule.tickAt(k)!.at_ms;
          if (ticks.length > 0) {
            expect(at, `${rule.kind} tick ${k} after ${new Date(ticks[k - 1]!).toISOString()}`).to.be.at.least(ticks[k - 1]!);
            // Equal only where a whole calendar day was skipped (Samoa, 2011-12-30): its shifted slot lands on the next day's.
            if (at === ticks[k - 1]) {
              expect(zone, String(rule.kind)).to.equal('Pacific/Apia');
              expect(at).to.be.within(Date.parse('2011-12-30T00:00:00Z'), Date.parse('2012-01-01T00:00:00Z'));
            }
          }
          ticks.push(at);
          // The walk keeps the first tick after the probed span, so every probe has a next tick.
          if (at > endMs) break;
        }
        const armed = schedule.arm();
        const inSpan = ticks.slice(0, -1).slice(0, 400);
        const probes = [...inSpan, ...inSpan.map((t) => t - 1), ...Array.from({ length: 400 }, () => Date.parse(start) + random() * (endMs - Date.parse(start) - 40 * 86_400_000))];
        for (const t of probes) {
          const expectedNext = ticks.findIndex((at) => at > t);
          expect(schedule.nextAfter(armed, t)?.tick, `${zone} ${JSON.stringify(rule)} next after ${new Date(t).toISOString()}`).to.equal(expectedNext);
          const expectedLatest = expectedNext - 1;
          const due = schedule.due(armed, t, 1);
          expect(due?.latest.tick ?? -1, `${zone} ${JSON.stringify(rule)} latest at ${new Date(t).toISOString()}`).to.equal(expectedLatest);
          if (due) expect(due.due_count).to.equal(expectedLatest + 1);
        }
      }
    });
  }
});
