/**
 * The schedule wording the gateway serves (reference §3.5): interval words, short local times, rule
 * texts of every kind with their bounds, schedule_text, the preview's first-run sentence and the
 * summary's schedule block.
 */
import { expect } from 'chai';
import { triggers } from '@keel/plugin-automations';

const sources = new triggers.TriggerSources();
const NOW = Date.parse('2026-10-08T12:00:00Z'); // Thursday
const binding = (source: string, config: Record<string, unknown>) => {
  const [id, version] = source.split('@');
  return sources.normalise({ source_id: id, source_version: Number(version), config }, { nowMs: NOW, ownerZone: 'Europe/Paris' });
};
const rule = (source: string, config: Record<string, unknown>, zone = 'Europe/Paris') => triggers.scheduleRuleText(binding(source, config), zone, NOW);

describe('triggers: schedule wording (reference §3.5)', () => {
  it('interval words: singular for 1, plural otherwise, "every <text>" when unparsable', () => {
    expect(['1s', '1m', '1h', '1d', '30m', '24h', '2d', 'weekly'].map(triggers.intervalWords)).to.deep.equal([
      'every second', 'every minute', 'every hour', 'every day', 'every 30 minutes', 'every 24 hours', 'every 2 days', 'every weekly',
    ]);
  });

  it('short local time: "Thu 9 Oct 08:00" in the zone, the year only when it is not the current one there', () => {
    expect(triggers.shortLocalTime(Date.parse('2026-10-09T06:00:00Z'), 'Europe/Paris', NOW)).to.equal('Fri 9 Oct 08:00');
    expect(triggers.shortLocalTime(Date.parse('2027-01-04T13:05:00Z'), 'America/New_York', NOW)).to.equal('Mon 4 Jan 2027 08:05');
    // New Year's Eve 23:30 in New York is already next year in UTC: the zone's own year decides.
    const eve = Date.parse('2026-12-31T20:00:00Z');
    expect(triggers.shortLocalTime(Date.parse('2027-01-01T04:30:00Z'), 'America/New_York', eve)).to.equal('Thu 31 Dec 23:30');
  });

  it('rule texts of every kind, with count and until bounds', () => {
    expect(rule('manual@1', {})).to.equal('Manual runs only');
    expect(rule('event@1', { name: 'deploy' })).to.equal('When the event "deploy" is emitted');
    expect(rule('schedule@1', { every: '30m', start_at: '2026-10-08T12:00:00Z' })).to.equal('Every 30 minutes (UTC)');
    expect(rule('schedule@1', { start_at: '2026-10-09T06:00:00Z' })).to.equal('Once at Fri 9 Oct 08:00 (Europe/Paris)');
    expect(rule('schedule@2', { kind: 'every', every: '1h', time_zone: 'UTC', count: 1 })).to.equal('Every hour (UTC) · 1 run max');
    expect(rule('schedule@2', { kind: 'once', at: '2026-10-09T08:00', time_zone: 'Europe/Paris' })).to.equal('Once at Fri 9 Oct 08:00 (Europe/Paris)');
    expect(rule('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris', count: 5 })).to.equal('Every day at 08:00 (Europe/Paris) · 5 runs max');
    expect(rule('schedule@2', { kind: 'weekly', days: ['sun', 'mon', 'wed'], at: '07:15', time_zone: 'America/New_York' })).to.equal('Every Mon, Wed and Sun at 07:15 (America/New_York)');
    expect(rule('schedule@2', { kind: 'weekly', days: ['fri'], at: '07:15', time_zone: 'UTC' })).to.equal('Every Fri at 07:15 (UTC)');
    expect(rule('schedule@2', { kind: 'monthly', day: 'last', at: '18:00', time_zone: 'Europe/Paris' })).to.equal('Monthly on the last day at 18:00 (Europe/Paris)');
    expect(rule('schedule@2', { kind: 'monthly', day: 30, at: '18:00', time_zone: 'Europe/Paris' })).to.equal('Monthly on day 30 (or the last day) at 18:00 (Europe/Paris)');
    expect(rule('schedule@2', { kind: 'monthly', day: 28, at: '18:00', time_zone: 'Europe/Paris', until: '2027-01-01T00:00:00+01:00' })).to.equal('Monthly on day 28 at 18:00 (Europe/Paris) · until Fri 1 Jan 2027 00:00');
    expect(triggers.scheduleRuleText({ source_id: 'email.received', source_version: 1, config: {} }, 'UTC', NOW)).to.equal('When an email arrives');
    expect(triggers.scheduleRuleText({ source_id: 'webhook', source_version: 3, config: {} }, 'UTC', NOW)).to.equal('webhook@3');
    expect(triggers.scheduleRuleText({ source_id: 'schedule', source_version: 2, config: { kind: 'once' } }, 'UTC', NOW)).to.equal('Once, now');
  });

  it('schedule_text adds the next run; a fixed UTC interval names the zone after each time unless it is UTC', () => {
    const every = binding('schedule@1', { every: '24h', start_at: '2026-10-08T19:53:00Z', until: '2026-12-01T00:00:00Z' });
    const next = Date.parse('2026-10-09T19:53:00Z');
    expect(triggers.scheduleText(every, 'Europe/Paris', next, NOW)).to.equal('Every 24 hours (UTC) · until Tue 1 Dec 01:00 (Europe/Paris) · next Fri 9 Oct 21:53 (Europe/Paris)');
    expect(triggers.scheduleText(every, 'UTC', next, NOW)).to.equal('Every 24 hours (UTC) · until Tue 1 Dec 00:00 · next Fri 9 Oct 19:53');
    expect(triggers.scheduleText(every, 'Europe/Paris', null, NOW)).to.equal('Every 24 hours (UTC) · until Tue 1 Dec 01:00 (Europe/Paris)');
    const daily = binding('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris' });
    expect(triggers.scheduleText(daily, 'America/New_York', Date.parse('2026-10-09T06:00:00Z'), NOW)).to.equal('Every day at 08:00 (Europe/Paris) · next Fri 9 Oct 08:00');
  });

  it('first-run sentence: no run left, first run now (within a second), first run <time>; once and non-schedule end with the rule', () => {
    const daily = binding('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris' });
    expect(triggers.firstRunSentence(daily, 'UTC', Date.parse('2026-10-09T06:00:00Z'), NOW)).to.equal('Runs every day at 08:00 (Europe/Paris), first run Fri 9 Oct 08:00.');
    expect(triggers.firstRunSentence(daily, 'UTC', NOW + 1000, NOW)).to.equal('Runs every day at 08:00 (Europe/Paris), first run now.');
    expect(triggers.firstRunSentence(daily, 'UTC', null, NOW)).to.equal('Runs every day at 08:00 (Europe/Paris), no run left.');
    const every = binding('schedule@1', { every: '1h' });
    expect(triggers.firstRunSentence(every, 'Europe/Paris', NOW + 3_600_000, NOW)).to.equal('Runs every hour (UTC), first run Thu 8 Oct 15:00 (Europe/Paris).');
    expect(triggers.firstRunSentence(binding('manual@1', {}), 'UTC', null, NOW)).to.equal('Runs manual runs only.');
    const once = binding('schedule@2', { kind: 'once', at: '2026-10-09T08:00', time_zone: 'Europe/Paris' });
    expect(triggers.firstRunSentence(once, 'UTC', Date.parse('2026-10-09T06:00:00Z'), NOW)).to.equal('Runs once at Fri 9 Oct 08:00 (Europe/Paris).');
  });

  it('summary block: the trigger zone, texts, next_run_at in UTC and next_run_local with the zone\'s offset; no next run leaves both out', () => {
    const daily = binding('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'America/New_York' });
    expect(triggers.scheduleBlock(daily, 'Europe/Paris', '2026-10-09T12:00:00.000Z', NOW)).to.deep.equal({
      time_zone: 'America/New_York',
      schedule_rule_text: 'Every day at 08:00 (America/New_York)',
      schedule_text: 'Every day at 08:00 (America/New_York) · next Fri 9 Oct 08:00',
      next_run_at: '2026-10-09T12:00:00.000Z',
      next_run_local: '2026-10-09T08:00:00.000-04:00',
    });
    expect(triggers.scheduleBlock(binding('manual@1', {}), 'Europe/Paris', null, NOW)).to.deep.equal({ time_zone: 'Europe/Paris', schedule_rule_text: 'Manual runs only', schedule_text: 'Manual runs only' });
  });

  it('an occurrence row\'s trigger summary (reference §3.8)', () => {
    expect(triggers.occurrenceTriggerSummary(binding('schedule@1', { every: '30m' }), 'UTC', { kind: 'schedule', tick: 5 }, NOW)).to.equal('schedule: every 30 minutes (UTC), tick 5');
    expect(triggers.occurrenceTriggerSummary(binding('schedule@1', {}), 'UTC', { kind: 'schedule', tick: 0 }, NOW)).to.equal('schedule: once, tick 0');
    expect(triggers.occurrenceTriggerSummary(binding('schedule@2', { kind: 'daily', at: '08:00', time_zone: 'UTC' }), 'UTC', { kind: 'schedule', tick: 3 }, NOW)).to.equal('schedule: Every day at 08:00 (UTC), tick 3');
    expect(triggers.occurrenceTriggerSummary(binding('schedule@2', { kind: 'daily', at: '08:00' }), 'UTC', { kind: 'manual', command_id: 'c-9' }, NOW)).to.equal('manual: run now (c-9)');
  });

  it('the host zone: TZ when it names an IANA zone, else the runtime\'s zone, else UTC', () => {
    expect(triggers.hostZone({ TZ: 'Europe/Paris' })).to.equal('Europe/Paris');
    expect(triggers.hostZone({ TZ: ':America/New_York' })).to.equal('America/New_York');
    const fallback = triggers.hostZone({ TZ: 'Not/AZone' });
    expect(triggers.canonicalZone(fallback)).to.equal(fallback);
  });
});
