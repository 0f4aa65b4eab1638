/**
 * `schedule@1` (reference §3.4): config `{start_at?, every?, until?, count?, anchor?}`; ticks
 * `T_k = anchor + k·every` in fixed UTC lengths, or the one tick `start_at` without `every`.
 */
import { configObject, everyOf, fieldOf, MAX_COUNT } from './config-fields.js';
import { eventSchema, SCHEDULE_EVENT_PROPERTIES } from './event-schemas.js';
import { triggerRefusal } from './refusal.js';
import { boundsOf, storedBounds, storedBoundsOf } from './schedule-bounds.js';
import { everyRule, onceRule } from './slot-rules.js';
import { TickSchedule } from './tick-schedule.js';
import type { TriggerSource } from './trigger-source.js';

const TIMESTAMP = { type: 'string', format: 'date-time', description: 'RFC 3339 with an explicit offset.' };
export const EVERY_SCHEMA = { type: 'string', pattern: '^[1-9][0-9]*[smhd]$', description: 'A fixed interval: seconds, minutes, hours or days (at most 366d).' };
export const COUNT_SCHEMA = { type: 'integer', minimum: 1, maximum: MAX_COUNT, description: 'Scheduled runs at most.' };

export const scheduleV1Source: TriggerSource = {
  record: {
    id: 'schedule',
    version: 1,
    label: 'Schedule (fixed interval, UTC)',
    capabilities: { kind: 'time' },
    config_schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        start_at: { ...TIMESTAMP, description: 'The first run (default: now). RFC 3339 with an explicit offset.' },
        every: EVERY_SCHEMA,
        until: { ...TIMESTAMP, description: 'No run at or after this time (exclusive).' },
        count: { ...COUNT_SCHEMA, description: 'Scheduled runs at most; above 1 needs every.' },
        anchor: { ...TIMESTAMP, description: 'Always equal to start_at (stored); another value is unsupported.' },
      },
    },
    event_schema: eventSchema('A schedule tick.', SCHEDULE_EVENT_PROPERTIES, ['tick', 'scheduled_at']),
    available: true,
  },
  normalise(config, context) {
    const object = configObject(config, ['start_at', 'every', 'until', 'count', 'anchor'], 'schedule@1');
    const every = object.every === undefined ? undefined : everyOf(object.every);
    const bounds = boundsOf(object, context.nowMs);
    if (bounds.count !== null && bounds.count > 1 && every === undefined) {
      throw triggerRefusal('invalid_definition', 'count above 1 needs every (without it the schedule runs once).', fieldOf('count'));
    }
    return { ...storedBounds(bounds), ...(every !== undefined ? { every: object.every } : {}) };
  },
  compile(config) {
    const bounds = storedBoundsOf(config);
    const rule = typeof config.every === 'string' ? everyRule(bounds.startMs, everyOf(config.every)) : onceRule(bounds.startMs);
    return new TickSchedule({ rule, anchorMs: bounds.startMs, untilMs: bounds.untilMs, count: bounds.count, timeZone: 'UTC' });
  },
};
