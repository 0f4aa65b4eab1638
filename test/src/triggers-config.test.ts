/**
 * Trigger configs through the registry's one door (create, revise and preview use it): each rule of
 * reference §3.4 refused with its §3.10 reason code and field, and the normalised forms stored.
 */
import { expect } from 'chai';
import { isHttpError } from '@keel/plugin-sdk';
import { triggers } from '@keel/plugin-automations';

const sources = new triggers.TriggerSources();
const NOW = Date.parse('2026-01-15T12:00:00Z');
const normalise = (trigger: unknown, ownerZone = 'UTC') => sources.normalise(trigger, { nowMs: NOW, ownerZone });

/** The 422 detail a trigger is refused with. */
function refusal(trigger: unknown): { reason_code: string; message: string; field: string } {
  try {
    normalise(trigger);
  } catch (err) {
    if (!isHttpError(err)) throw err;
    expect(err.status).to.equal(422);
    return err.detail as { reason_code: string; message: string; field: string };
  }
  throw new Error(`accepted: ${JSON.stringify(trigger)}`);
}

const v1 = (config: Record<string, unknown>) => ({ source_id: 'schedule', source_version: 1, config });
const v2 = (config: Record<string, unknown>) => ({ source_id: 'schedule', source_version: 2, config });

describe('triggers: config validation (reference §3.4, reason codes of §3.10)', () => {
  it('lists schedule@1, schedule@2, manual@1, email.received@1 (unavailable: no mail inbox) and event@1 with their kinds, schemas and availability', () => {
    const rows = sources.list().map((r) => [`${r.id}@${r.version}`, r.capabilities.kind, r.available]);
    expect(rows).to.deep.equal([['schedule@1', 'time', true], ['schedule@2', 'time', true], ['manual@1', 'manual', true], ['email.received@1', 'event', false], ['event@1', 'event', true]]);
    for (const record of sources.list()) {
      expect(record.config_schema).to.include({ type: 'object', additionalProperties: false });
      expect(record.event_schema).to.have.property('properties');
    }
  });

  it('an unknown source or version is unknown_trigger_source; a missing source_id and unknown trigger keys are invalid_definition', () => {
    expect(refusal({ source_id: 'email.received', source_version: 1 })).to.include({ reason_code: 'unsupported_feature', field: 'trigger.source_id' });
    expect(refusal({ source_id: 'email.received', source_version: 2 })).to.include({ reason_code: 'unknown_trigger_source', field: 'trigger.source_id' });
    expect(refusal({ source_id: 'schedule', source_version: 3 })).to.include({ reason_code: 'unknown_trigger_source', field: 'trigger.source_id' });
    expect(refusal({ source_id: 'schedule', source_version: '2' })).to.include({ reason_code: 'invalid_definition', field: 'trigger.source_version' });
    expect(refusal({ config: {} })).to.include({ reason_code: 'invalid_definition', field: 'trigger.source_id' });
    expect(refusal({ source_id: 'manual', extra: 1 })).to.include({ reason_code: 'invalid_definition', field: 'trigger.extra' });
    expect(refusal('schedule')).to.include({ reason_code: 'invalid_definition', field: 'trigger' });
  });

  it('source_version left out means the newest; "schedule@1" names the version in the id; binding_id is the server\'s and ignored', () => {
    expect(normalise({ source_id: 'schedule', config: { kind: 'daily', at: '08:00' } }).source_version).to.equal(2);
    expect(normalise({ source_id: 'schedule@1', config: {} }).source_version).to.equal(1);
    expect(normalise({ source_id: 'manual', source_version: 1, binding_id: 'b-1', config: {} })).to.deep.equal({ source_id: 'manual', source_version: 1, config: {} });
  });

  it('schedule@1: timestamps need RFC 3339 with an explicit offset', () => {
    for (const start_at of ['2026-01-01T08:00:00', '2026-01-01', '2026-02-30T08:00:00Z', 'tomorrow', 17]) {
      expect(refusal(v1({ start_at })), String(start_at)).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.start_at' });
    }
    expect(normalise(v1({ start_at: '2026-01-01T08:00:00.5-05:00' })).config.start_at).to.equal('2026-01-01T13:00:00.500Z');
  });

  it('years 0..99 are read as written (Date.UTC would read them as 19xx)', () => {
    expect(normalise(v1({ start_at: '0050-01-01T00:00:00Z' })).config.start_at).to.equal('0050-01-01T00:00:00.000Z');
    const daily = normalise(v2({ kind: 'daily', at: '08:00', time_zone: 'UTC', start_at: '0050-01-01T00:00:00Z' }));
    expect(sources.schedule(daily)!.tickAt(0)?.scheduled_at).to.equal('0050-01-01T08:00:00.000Z');
  });

  it('schedule@1: every matches ^[1-9][0-9]*[smhd]$ and is at most 366d', () => {
    for (const every of ['0m', '1w', '01h', '1.5h', '367d', '9000h', 5]) {
      expect(refusal(v1({ every })), String(every)).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.every' });
    }
    expect(normalise(v1({ every: '366d' })).config.every).to.equal('366d');
  });

  it('schedule@1: anchor other than start_at is unsupported_feature; equal instants are accepted', () => {
    expect(refusal(v1({ start_at: '2026-01-01T00:00:00Z', anchor: '2026-01-01T00:00:01Z', every: '1h' }))).to.include({ reason_code: 'unsupported_feature', field: 'trigger.config.anchor' });
    expect(normalise(v1({ start_at: '2026-01-01T01:00:00+01:00', anchor: '2026-01-01T00:00:00Z', every: '1h' })).config).to.include({ anchor: '2026-01-01T00:00:00.000Z' });
  });

  it('schedule@1: count 1..1,000,000, above 1 only with every; until after start_at; no other keys', () => {
    for (const count of [0, 1_000_001, 1.5, '3']) expect(refusal(v1({ every: '1h', count })), String(count)).to.include({ field: 'trigger.config.count' });
    expect(refusal(v1({ count: 2 }))).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.count' });
    expect(normalise(v1({ count: 1 })).config.count).to.equal(1);
    expect(normalise(v1({ every: '1s', count: 1_000_000 })).config.count).to.equal(1_000_000);
    expect(refusal(v1({ start_at: '2026-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }))).to.include({ field: 'trigger.config.until' });
    expect(refusal(v1({ time_zone: 'UTC' }))).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.time_zone' });
  });

  it('schedule@2: an unknown zone is invalid_definition on trigger.config.time_zone; a missing zone gets the owner\'s', () => {
    for (const time_zone of ['Mars/Olympus', '+01:00', '', 'Europe/Paris\u0000', 42]) {
      expect(refusal(v2({ kind: 'daily', at: '08:00', time_zone })), String(time_zone)).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.time_zone' });
    }
    expect(normalise(v2({ kind: 'daily', at: '08:00' }), 'America/New_York').config.time_zone).to.equal('America/New_York');
    expect(normalise(v2({ kind: 'daily', at: '08:00', time_zone: 'europe/paris' })).config.time_zone).to.equal('Europe/Paris');
  });

  it('schedule@2: each kind takes its own fields and refuses the others', () => {
    expect(refusal(v2({}))).to.include({ field: 'trigger.config.kind' });
    expect(refusal(v2({ kind: 'hourly' }))).to.include({ field: 'trigger.config.kind' });
    expect(refusal(v2({ kind: 'daily' }))).to.include({ field: 'trigger.config.at' });
    expect(refusal(v2({ kind: 'daily', at: '24:00' }))).to.include({ field: 'trigger.config.at' });
    expect(refusal(v2({ kind: 'daily', at: '08:00', days: ['mon'] }))).to.include({ field: 'trigger.config.days' });
    expect(refusal(v2({ kind: 'weekly', at: '08:00', days: [] }))).to.include({ field: 'trigger.config.days' });
    expect(refusal(v2({ kind: 'weekly', at: '08:00', days: ['mon', 'mon'] }))).to.include({ field: 'trigger.config.days' });
    expect(refusal(v2({ kind: 'weekly', at: '08:00', days: ['Monday'] }))).to.include({ field: 'trigger.config.days' });
    for (const day of [0, 32, 'first', 1.5]) expect(refusal(v2({ kind: 'monthly', at: '08:00', day })), String(day)).to.include({ field: 'trigger.config.day' });
    expect(refusal(v2({ kind: 'every' }))).to.include({ field: 'trigger.config.every' });
    expect(refusal(v2({ kind: 'once', at: '2026-02-30T08:00' }))).to.include({ field: 'trigger.config.at' });
    expect(refusal(v2({ kind: 'once', at: '2026-03-01T08:00', start_at: '2026-03-01T09:00:00Z', time_zone: 'UTC' }))).to.include({ field: 'trigger.config.start_at' });
    expect(refusal(v2({ kind: 'daily', at: '08:00', anchor: '2020-01-01T00:00:00Z' }))).to.include({ reason_code: 'unsupported_feature', field: 'trigger.config.anchor' });
  });

  it('schedule@2: the stored config carries time_zone, start_at and anchor, and normalising it again changes nothing', () => {
    const first = normalise(v2({ kind: 'monthly', day: 'last', at: '18:00', time_zone: 'Europe/Paris', count: 12 }));
    expect(first.config).to.deep.equal({ kind: 'monthly', time_zone: 'Europe/Paris', at: '18:00', day: 'last', start_at: '2026-01-15T12:00:00.000Z', anchor: '2026-01-15T12:00:00.000Z', count: 12 });
    expect(sources.normalise(first, { nowMs: NOW + 86_400_000, ownerZone: 'UTC' })).to.deep.equal(first);
    const once = normalise(v2({ kind: 'once', at: '2026-07-01T08:00', time_zone: 'Europe/Paris' }));
    expect(sources.normalise(once, { nowMs: NOW + 86_400_000, ownerZone: 'UTC' })).to.deep.equal(once);
  });

  it('manual@1 takes no fields; event@1 needs a name of at most 200 characters and takes a session_id', () => {
    expect(normalise({ source_id: 'manual', source_version: 1 }).config).to.deep.equal({});
    expect(refusal({ source_id: 'manual', source_version: 1, config: { every: '1h' } })).to.include({ field: 'trigger.config.every' });
    expect(refusal({ source_id: 'manual', source_version: 1, config: [] })).to.include({ field: 'trigger.config' });
    const event = (config: Record<string, unknown>) => ({ source_id: 'event', source_version: 1, config });
    expect(refusal(event({}))).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.name' });
    expect(refusal(event({ name: 'x'.repeat(201) }))).to.include({ field: 'trigger.config.name' });
    expect(refusal(event({ name: 'deploy', session_id: '' }))).to.include({ field: 'trigger.config.session_id' });
    expect(refusal(event({ name: 'deploy', filter: {} }))).to.include({ field: 'trigger.config.filter' });
    expect(normalise(event({ name: 'x'.repeat(200), session_id: 's1' })).config).to.deep.equal({ name: 'x'.repeat(200), session_id: 's1' });
  });

  it('event@1 matches by name and (when set) session, and hands the occurrence the event as its envelope', () => {
    const source = sources.get('event', 1)!;
    const event = { account: 'default:bob', event_id: 'e1', name: 'deploy', session_id: 's1', payload: { ok: true }, emitted_at: '2026-01-01T00:00:00.000Z', command_id: 'c1' };
    expect(source.matches!({ name: 'deploy' }, event)).to.equal(true);
    expect(source.matches!({ name: 'deploy', session_id: 's1' }, event)).to.equal(true);
    expect(source.matches!({ name: 'deploy', session_id: 's2' }, event)).to.equal(false);
    expect(source.matches!({ name: 'Deploy' }, event)).to.equal(false);
    expect(source.envelope!(event)).to.deep.equal({ event: { event_id: 'e1', name: 'deploy', session_id: 's1', payload: { ok: true }, emitted_at: '2026-01-01T00:00:00.000Z', command_id: 'c1' } });
  });

  it('a schedule tick\'s event id and payload', () => {
    expect(triggers.scheduleEventId(2, 'b-1', 7)).to.equal('schedule@2:b-1:7');
    expect(triggers.scheduleEventPayload({ tick: 7, at_ms: 0, scheduled_at: '1970-01-01T00:00:00.000Z' })).to.deep.equal({ tick: 7, scheduled_at: '1970-01-01T00:00:00.000Z' });
  });
});
