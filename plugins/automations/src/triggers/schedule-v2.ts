/**
 * `schedule@2` (reference §3.4): calendar rules in an IANA time zone. `config.kind` is `every`
 * (fixed UTC lengths as schedule@1), `once` (`start_at`, or a wall time `at: "YYYY-MM-DDTHH:MM"`,
 * or now), `daily` (`at: "HH:MM"`), `weekly` (`days`, `at`), `monthly` (`day: 1..31 | "last"`, `at`).
 * Every kind takes `time_zone` (default: the owner's zone), `start_at` (rules start there, default
 * now), `until`, `count`; the stored config carries `time_zone`, `start_at` and `anchor`.
 * Daylight saving: see wall-time.ts (a nonexistent wall time runs after the gap, a repeated one once).
 */
import { configObject, everyOf, fieldOf, isRealDate, wallTimeOf } from './config-fields.js';
import { eventSchema, SCHEDULE_EVENT_PROPERTIES } from './event-schemas.js';
import { triggerRefusal } from './refusal.js';
import { boundsOf, storedBounds, storedBoundsOf } from './schedule-bounds.js';
import { COUNT_SCHEMA, EVERY_SCHEMA } from './schedule-v1.js';
import { dailyRule, everyRule, monthlyRule, onceRule, weeklyRule, type SlotRule } from './slot-rules.js';
import { TickSchedule } from './tick-schedule.js';
import type { TriggerSource } from './trigger-source.js';
import { canonicalZone, wallTimeToInstant } from './wall-time.js';

export const SCHEDULE_KINDS = ['every', 'once', 'daily', 'weekly', 'monthly'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

const SHARED = ['kind', 'time_zone', 'start_at', 'anchor', 'until', 'count'];
const FIELDS_OF: Record<ScheduleKind, string[]> = {
  every: [...SHARED, 'every'],
  once: [...SHARED, 'at'],
  daily: [...SHARED, 'at'],
  weekly: [...SHARED, 'days', 'at'],
  monthly: [...SHARED, 'day', 'at'],
};
const ONCE_AT = /^(\d{4})-(\d{2})-(\d{2})T([01][0-9]|2[0-3]):([0-5][0-9])$/;

const TIMESTAMP = { type: 'string', format: 'date-time', description: 'RFC 3339 with an explicit offset.' };
const CONFIG_SCHEMA = {
  type: 'object',
  required: ['kind'],
  additionalProperties: false,
  properties: {
    kind: { type: 'string', enum: [...SCHEDULE_KINDS] },
    time_zone: { type: 'string', description: 'IANA time zone (default: the owner\'s).' },
    every: { ...EVERY_SCHEMA, description: 'kind every: a fixed interval in UTC (at most 366d).' },
    at: { type: 'string', description: 'daily/weekly/monthly: wall time HH:MM; once: wall time YYYY-MM-DDTHH:MM.' },
    days: { type: 'array', minItems: 1, maxItems: 7, uniqueItems: true, items: { type: 'string', enum: [...WEEKDAYS] }, description: 'kind weekly.' },
    day: { oneOf: [{ type: 'integer', minimum: 1, maximum: 31 }, { const: 'last' }], description: 'kind monthly: a day past the month\'s end runs on its last day.' },
    start_at: { ...TIMESTAMP, description: 'once: the run; other kinds: the rule starts here (default now).' },
    anchor: { ...TIMESTAMP, description: 'Always equal to start_at (stored); another value is unsupported.' },
    until: { ...TIMESTAMP, description: 'No run at or after this time (exclusive).' },
    count: COUNT_SCHEMA,
  },
  allOf: [
    { if: { properties: { kind: { const: 'every' } } }, then: { required: ['every'] } },
    { if: { properties: { kind: { enum: ['daily', 'weekly', 'monthly'] } } }, then: { required: ['at'] } },
    { if: { properties: { kind: { const: 'weekly' } } }, then: { required: ['days'] } },
    { if: { properties: { kind: { const: 'monthly' } } }, then: { required: ['day'] } },
  ],
};

export const scheduleV2Source: TriggerSource = {
  record: {
    id: 'schedule',
    version: 2,
    label: 'Schedule',
    capabilities: { kind: 'time' },
    config_schema: CONFIG_SCHEMA,
    event_schema: eventSchema('A schedule tick.', SCHEDULE_EVENT_PROPERTIES, ['tick', 'scheduled_at']),
    available: true,
  },
  normalise(config, context) {
    const kind = kindOf(config);
    const object = configObject(config, FIELDS_OF[kind], `schedule@2 (${kind})`);
    let zone = context.ownerZone;
    if (object.time_zone !== undefined) {
      const canonical = typeof object.time_zone === 'string' ? canonicalZone(object.time_zone) : null;
      if (canonical === null) {
        throw triggerRefusal('invalid_definition', 'time_zone must be an IANA time zone name, for example Europe/Paris or America/New_York.', fieldOf('time_zone'));
      }
      zone = canonical;
    }
    const rule: Record<string, unknown> = {};
    let onceStart: number | undefined;
    if (kind === 'every') {
      everyOf(object.every);
      rule.every = object.every;
    } else if (kind === 'once') {
      if (object.at !== undefined) {
        onceStart = onceAtOf(object.at, zone);
        rule.at = object.at;
      }
    } else {
      rule.at = wallTimeOf(object.at).text;
      if (kind === 'weekly') rule.days = daysOf(object.days);
      if (kind === 'monthly') rule.day = dayOf(object.day);
    }
    const bounds = boundsOf(object, context.nowMs, onceStart);
    return { kind, time_zone: zone, ...rule, ...storedBounds(bounds) };
  },
  compile(config) {
    const bounds = storedBoundsOf(config);
    const zone = typeof config.time_zone === 'string' ? config.time_zone : 'UTC';
    return new TickSchedule({ rule: ruleOf(config, bounds.startMs, zone), anchorMs: bounds.startMs, untilMs: bounds.untilMs, count: bounds.count, timeZone: zone });
  },
};

/** The slot rule of a stored schedule@2 config. */
function ruleOf(config: Record<string, unknown>, startMs: number, zone: string): SlotRule {
  const at = typeof config.at === 'string' && config.kind !== 'once' ? wallTimeOf(config.at) : { hour: 0, minute: 0 };
  switch (config.kind) {
    case 'every':
      return everyRule(startMs, everyOf(config.every));
    case 'daily':
      return dailyRule(zone, at.hour, at.minute);
    case 'weekly':
      return weeklyRule(zone, (config.days as string[]).map((day) => WEEKDAYS.indexOf(day as (typeof WEEKDAYS)[number])), at.hour, at.minute);
    case 'monthly':
      return monthlyRule(zone, config.day as number | 'last', at.hour, at.minute);
    default:
      return onceRule(startMs);
  }
}

function kindOf(config: unknown): ScheduleKind {
  const kind = typeof config === 'object' && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>).kind : undefined;
  if (typeof kind !== 'string' || !(SCHEDULE_KINDS as readonly string[]).includes(kind)) {
    throw triggerRefusal('invalid_definition', `A schedule@2 config needs kind: one of ${SCHEDULE_KINDS.join(', ')}.`, fieldOf('kind'));
  }
  return kind as ScheduleKind;
}

/** A once wall time `YYYY-MM-DDTHH:MM` in the zone, as an instant. */
function onceAtOf(value: unknown, zone: string): number {
  const match = typeof value === 'string' ? ONCE_AT.exec(value) : null;
  if (!match || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw triggerRefusal('invalid_definition', 'at must be a wall time YYYY-MM-DDTHH:MM in the schedule\'s time zone, for example 2026-03-29T08:00.', fieldOf('at'));
  }
  return wallTimeToInstant(zone, Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5]));
}

/** A non-empty set of weekdays, stored in Monday…Sunday order. */
function daysOf(value: unknown): string[] {
  const valid = Array.isArray(value) && value.length > 0 && value.every((day) => (WEEKDAYS as readonly unknown[]).includes(day)) && new Set(value).size === value.length;
  if (!valid) throw triggerRefusal('invalid_definition', `days must be a non-empty list of distinct days among ${WEEKDAYS.join(', ')}.`, fieldOf('days'));
  return WEEKDAYS.filter((day) => (value as unknown[]).includes(day));
}

function dayOf(value: unknown): number | 'last' {
  if (value === 'last' || (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 31)) return value;
  throw triggerRefusal('invalid_definition', 'day must be a day of the month 1 to 31 (a day past the month\'s end runs on its last day) or "last".', fieldOf('day'));
}
