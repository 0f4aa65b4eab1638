/**
 * The definitions routes (seed 000 §4.8, reference gateway-surfaces §3.3, §3.6, §3.7): create,
 * list, read, revisions, revise (PATCH) and commands. Every route needs a signed-in account and
 * sees only that account's automations; refusals are `{detail: {reason_code, message, field?,
 * command_id?}}` (the plugin's errorFormat).
 */
import { defineSchema, route, schema } from '@keel/plugin-sdk';
import type { Automations } from '../automations.js';
import type { AutomationLimits } from '../config.js';
import { AUTOMATION_COMMAND_TYPES } from '../model.js';

export const errorSchema = defineSchema({
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'object',
      required: ['reason_code', 'message'],
      properties: { reason_code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' }, command_id: { type: 'string' } },
    },
  },
});

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, { description: 'Refused: {detail: {reason_code, message, field?, command_id?}}', schema: errorSchema }]));

const summarySchema = defineSchema({
  type: 'object',
  required: ['automation_id', 'title', 'status', 'trigger', 'revision', 'capabilities', 'attention'],
  properties: {
    automation_id: { type: 'string' },
    title: { type: 'string' },
    status: { enum: ['active', 'paused', 'completed', 'failed', 'archived'] },
    trigger: { type: 'object' },
    revision: { type: 'integer' },
    capabilities: { type: 'array', items: { type: 'string' } },
    attention: { type: 'object' },
  },
});

const createBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['request_id', 'target'],
  properties: {
    request_id: { type: 'string', description: 'Idempotency key: the same request again answers the same automation; another request under it is 409 identity_conflict.' },
    title: { type: 'string', description: 'At most 120 characters; default: the target workflow\'s name.' },
    target: { type: 'object', description: '{bundle_ref, flow_id, input_data?, registry_scope?} or {flow_id: "@default", interface, input_data?}' },
    trigger: { type: 'object', description: '{source_id, source_version, config} (GET /trigger-sources)' },
    context: { type: 'object', description: '{mode: independent | growing, growing?: {max_tokens}}' },
    policy: { type: 'object', description: '{misfire: coalesce | skip | all, retry: {max_attempts, backoff: {initial, factor, max}}, tool_approval: auto | ask}' },
    notify: { type: 'object', description: '{channels: ["console"]}' },
  },
  examples: [{ request_id: 'daily-digest-1', target: { bundle_ref: 'my-bundle', flow_id: 'main', input_data: { prompt: 'Summarise the news' } }, trigger: { source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00' } } }],
});

const createAnswer = defineSchema({
  type: 'object',
  required: ['automation_id', 'revision', 'summary'],
  properties: { automation_id: { type: 'string' }, revision: { type: 'integer' }, summary: summarySchema.json },
});

const idParams = defineSchema({ type: 'object', required: ['automation_id'], properties: { automation_id: { type: 'string', minLength: 1 } } });

const receiptSchema = defineSchema({
  type: 'object',
  required: ['command_id', 'accepted', 'duplicate', 'seq'],
  properties: { command_id: { type: 'string' }, accepted: { type: 'boolean' }, duplicate: { type: 'boolean' }, seq: { type: 'integer' } },
});

const patchBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'changes'],
  properties: {
    command_id: { type: 'string' },
    expected_revision: { type: 'integer', description: 'The revision you read; another one is 409 revision_conflict.' },
    changes: { type: 'object', description: 'Some of title, target, trigger, context (replaced whole) and policy (fields merged).' },
  },
});

const commandBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['command_id', 'type'],
  properties: {
    command_id: { type: 'string' },
    type: { type: 'string', description: AUTOMATION_COMMAND_TYPES.join(', ') },
    payload: { type: 'object' },
  },
});

export function automationRoutes(automations: Automations, limits: AutomationLimits) {
  const pageQuery = (extra: Record<string, unknown>) => ({
    type: 'object',
    additionalProperties: false,
    properties: {
      ...extra,
      cursor: { type: 'string', maxLength: 512 },
      limit: { type: 'integer', minimum: 1, maximum: limits.maxPageSize, description: `1..${limits.maxPageSize}, default ${limits.defaultPageSize}` },
    },
  });
  const listQuery = schema<{ status?: string; archived_only?: boolean; cursor?: string; limit?: number; changed_since?: string }>(
    pageQuery({
      status: { type: 'string', maxLength: 200, description: 'Comma list of active, paused, completed, failed, archived' },
      archived_only: { type: 'boolean' },
      changed_since: { type: 'string', maxLength: 100, description: 'Not supported (422 unsupported_feature)' },
    }),
  );
  const revisionsQuery = schema<{ cursor?: string; limit?: number }>(pageQuery({}));

  return [
    route({
      method: 'POST',
      path: '/automations',
      tags: ['automations'],
      summary: 'Create an automation (idempotent by request_id): a workflow target, a trigger, context and policy',
      body: createBody,
      responses: { 200: { schema: createAnswer }, ...errors(401, 404, 409, 422) },
      handler: ({ body, principal }) => automations.create(principal, body),
    }),
    route({
      method: 'GET',
      path: '/automations',
      tags: ['automations'],
      summary: 'Your automations, newest first (archived ones only with archived_only=true or status=archived)',
      query: listQuery,
      responses: {
        200: { schema: defineSchema({ type: 'object', required: ['items', 'next_cursor', 'archived_automations'], properties: { items: { type: 'array', items: summarySchema.json }, next_cursor: { type: ['string', 'null'] }, archived_automations: { type: 'integer' } } }) },
        ...errors(401, 422),
      },
      handler: ({ query, principal }) => automations.list(principal, query),
    }),
    route({
      method: 'GET',
      path: '/automations/:automation_id',
      tags: ['automations'],
      summary: 'An automation: its active definition, revision and summary',
      params: idParams,
      responses: {
        200: { schema: defineSchema({ type: 'object', required: ['definition', 'active_revision', 'summary'], properties: { definition: { type: 'object' }, active_revision: { type: 'integer' }, summary: summarySchema.json } }) },
        ...errors(401, 404),
      },
      handler: ({ params, principal }) => automations.read(principal, params.automation_id),
    }),
    route({
      method: 'GET',
      path: '/automations/:automation_id/revisions',
      tags: ['automations'],
      summary: 'Every kept revision of an automation\'s definition, newest first',
      params: idParams,
      query: revisionsQuery,
      responses: {
        200: { schema: defineSchema({ type: 'object', required: ['items', 'next_cursor', 'active_revision'], properties: { items: { type: 'array', items: { type: 'object' } }, next_cursor: { type: ['string', 'null'] }, active_revision: { type: 'integer' } } }) },
        ...errors(401, 404, 422),
      },
      handler: ({ params, query, principal }) => automations.revisions(principal, params.automation_id, query),
    }),
    route({
      method: 'PATCH',
      path: '/automations/:automation_id',
      tags: ['automations'],
      summary: 'Revise an automation (automation.revise): the receipt {command_id, accepted, duplicate, seq}',
      params: idParams,
      body: patchBody,
      responses: { 200: { schema: receiptSchema }, ...errors(401, 404, 409, 422) },
      handler: ({ params, body, principal }) => automations.revise(principal, params.automation_id, body),
    }),
    route({
      method: 'POST',
      path: '/automations/:automation_id/commands',
      tags: ['automations'],
      summary: 'Pause, resume, run now, stop the current occurrence, archive, unarchive or revise: the receipt {command_id, accepted, duplicate, seq}',
      params: idParams,
      body: commandBody,
      responses: { 200: { schema: receiptSchema }, ...errors(401, 404, 409, 422) },
      handler: ({ params, body, principal }) => automations.command(principal, params.automation_id, body),
    }),
  ];
}
