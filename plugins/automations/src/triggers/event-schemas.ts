/**
 * The `event_schema` of each source: what an occurrence receives as `input_data.trigger` — the
 * fields every occurrence carries (written by the engine) plus the ones its source adds.
 */
const COMMON_PROPERTIES: Record<string, unknown> = {
  source: { type: 'string', description: 'The source as the [Trigger …] line names it, e.g. schedule@2.' },
  source_id: { type: 'string' },
  source_version: { type: 'integer' },
  binding_id: { type: 'string', description: 'The trigger binding in force (new on every trigger change).' },
  kind: { type: 'string', enum: ['schedule', 'manual', 'event'] },
  event_id: { type: 'string', description: 'schedule@N:<binding_id>:<tick>, manual:<command_id> or event@1:<binding_id>:<event id>.' },
  automation_id: { type: 'string' },
  occurrence_index: { type: 'integer', minimum: 1 },
  revision: { type: 'integer', minimum: 1 },
  fired_at: { type: 'string', format: 'date-time' },
  command_id: { type: 'string', description: 'The run_now command (manual runs).' },
};
const COMMON_REQUIRED = ['source', 'source_id', 'source_version', 'binding_id', 'kind', 'event_id', 'automation_id', 'occurrence_index', 'revision', 'fired_at'];

export function eventSchema(description: string, properties: Record<string, unknown>, required: string[]): Record<string, unknown> {
  return {
    type: 'object',
    description,
    properties: { ...COMMON_PROPERTIES, ...properties },
    required: [...COMMON_REQUIRED, ...required],
  };
}

export const SCHEDULE_EVENT_PROPERTIES = {
  tick: { type: 'integer', minimum: 0, description: 'The tick fired (0 is the first at or after the anchor).' },
  scheduled_at: { type: 'string', format: 'date-time', description: 'When the tick was due (UTC).' },
  coalesced: {
    type: 'object',
    description: 'Present when this occurrence stands for missed ticks too (misfire coalesce).',
    properties: { first_tick: { type: 'integer' }, last_tick: { type: 'integer' }, missed_count: { type: 'integer' } },
  },
};
