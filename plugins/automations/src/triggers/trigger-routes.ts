/**
 * `GET /trigger-sources` (any signed-in principal) and `POST /automations/schedule-preview`
 * (reference §3.4, §3.5). Refusals are `{detail: {reason_code, message, field?}}`.
 */
import { defineSchema, route, type Clock } from '@keel/plugin-sdk';
import { schedulePreview } from './schedule-preview.js';
import type { TriggerSources } from './trigger-sources.js';

const sourceRecordSchema = {
  type: 'object',
  required: ['id', 'version', 'label', 'capabilities', 'config_schema', 'event_schema', 'available'],
  properties: {
    id: { type: 'string' },
    version: { type: 'integer' },
    label: { type: 'string' },
    capabilities: { type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ['time', 'manual', 'event'] } } },
    config_schema: { type: 'object' },
    event_schema: { type: 'object' },
    available: { type: 'boolean' },
    unavailable_reason: { type: 'string' },
  },
} as const;

const sourcesListSchema = defineSchema({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: sourceRecordSchema } } });

const triggerSchema = {
  type: 'object',
  description: '{source_id, source_version, config} as a definition takes it (GET /trigger-sources lists the sources and their config_schema).',
} as const;

const previewBodySchema = defineSchema({
  type: 'object',
  required: ['trigger'],
  additionalProperties: false,
  properties: { trigger: triggerSchema },
  examples: [{ trigger: { source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris' } } }],
});

const previewSchema = defineSchema({
  type: 'object',
  required: ['trigger', 'time_zone', 'schedule_rule_text', 'schedule_text', 'next_run_at', 'next_run_local', 'first_run_sentence'],
  properties: {
    trigger: {
      type: 'object',
      required: ['source_id', 'source_version', 'config'],
      properties: { source_id: { type: 'string' }, source_version: { type: 'integer' }, config: { type: 'object' } },
    },
    time_zone: { type: 'string' },
    schedule_rule_text: { type: 'string' },
    schedule_text: { type: 'string' },
    next_run_at: { type: ['string', 'null'] },
    next_run_local: { type: ['string', 'null'] },
    first_run_sentence: { type: 'string' },
  },
});

const errorSchema = defineSchema({
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'object', required: ['reason_code', 'message'], properties: { reason_code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } } } },
});

export interface TriggerRouteDeps {
  sources: TriggerSources;
  clock: Clock;
  /** The owner zone of the calling account (reference §3.5; see owner-zone.ts). */
  ownerZone: (account: string) => string;
}

export function triggerRoutes(deps: TriggerRouteDeps) {
  return [
    route({
      method: 'GET',
      path: '/trigger-sources',
      tags: ['automations'],
      summary: 'The trigger sources an automation can use, with their config and event schemas',
      responses: { 200: { schema: sourcesListSchema }, 401: { schema: errorSchema } },
      handler: () => ({ items: deps.sources.list() }),
    }),
    route({
      method: 'POST',
      path: '/automations/schedule-preview',
      tags: ['automations'],
      summary: 'A trigger normalised as a create would store it, with its schedule wording and first run; nothing is stored',
      body: previewBodySchema,
      responses: { 200: { schema: previewSchema }, 401: { schema: errorSchema }, 422: { schema: errorSchema } },
      handler: ({ body, principal }) => schedulePreview(deps.sources, body.trigger, deps.ownerZone(principal.account), deps.clock.nowMs()),
    }),
  ];
}
