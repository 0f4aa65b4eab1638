/**
 * `GET /automations/{id}/occurrences`, `GET /automations/{id}/attention`, `POST /automations/{id}/seen`
 * (reference §3.8, seed 000 §4.8). Owner only: another account's automation answers 404 like one
 * that does not exist. Errors take the plugin's `{detail: {reason_code, message, field?}}` envelope.
 */
import { defineSchema, route, type Principal } from '@keel/plugin-sdk';
import { automationNotFound } from '../errors.js';
import { isUuid } from '../ids.js';
import type { AutomationRecord } from '../model.js';
import type { AutomationStore } from '../store/automation-store.js';
import type { OccurrenceReaders } from './occurrence-readers.js';

const params = defineSchema({
  type: 'object',
  required: ['automation_id'],
  properties: { automation_id: { type: 'string', minLength: 1, maxLength: 200 } },
});

const pageQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: { type: 'string', minLength: 1, maxLength: 200 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
});

const seenBody = defineSchema({
  type: 'object',
  required: ['attention_cursor'],
  additionalProperties: false,
  properties: { attention_cursor: { type: 'string', maxLength: 200 } },
});

const nullableString = { type: ['string', 'null'] } as const;
const waitSchema = {
  type: 'object',
  required: ['run_id', 'wait_key', 'kind', 'reason'],
  properties: { run_id: { type: 'string' }, wait_key: nullableString, kind: { type: 'string' }, reason: { type: 'string' }, prompt: { type: 'string' }, choices: { type: 'array' } },
} as const;
const tickRange = {
  type: ['object', 'null'],
  required: ['first_tick', 'last_tick', 'missed_count', 'reason'],
  properties: { first_tick: { type: 'integer' }, last_tick: { type: 'integer' }, missed_count: { type: 'integer' }, reason: { type: 'string' } },
} as const;

const occurrencePage = defineSchema({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: {
    next_cursor: nullableString,
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['run_id', 'index', 'attempts', 'fired_at', 'finished_at', 'status', 'trigger', 'user_turn', 'answer', 'notify', 'artifacts', 'waits', 'coalesced'],
        properties: {
          run_id: nullableString,
          index: { type: 'integer' },
          attempts: { type: 'integer' },
          fired_at: { type: 'string' },
          finished_at: nullableString,
          scheduled_at: nullableString,
          status: { enum: ['admitted', 'running', 'waiting', 'backoff', 'completed', 'failed', 'cancelled', 'skipped'] },
          trigger: { type: 'object', required: ['source_id', 'summary'], properties: { source_id: { type: 'string' }, summary: { type: 'string' } } },
          user_turn: { type: 'string' },
          answer: { type: 'string' },
          notify: {},
          failure: { type: 'object', properties: { reason_code: { type: 'string' }, message: { type: 'string' }, attempts: { type: 'integer' } } },
          artifacts: { type: 'array' },
          waits: { type: 'array', items: waitSchema },
          ledger_url: { type: 'string' },
          workspace_url: { type: 'string' },
          coalesced: tickRange,
        },
      },
    },
  },
});

const attentionPage = defineSchema({
  type: 'object',
  required: ['items', 'next_cursor'],
  properties: {
    next_cursor: nullableString,
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'automation_id', 'run_id', 'index', 'at', 'title', 'cursor'],
        properties: {
          kind: { enum: ['notify', 'failure'] },
          automation_id: { type: 'string' },
          run_id: { type: 'string' },
          index: { type: 'integer' },
          at: { type: 'string' },
          title: { type: 'string' },
          body: { type: 'string' },
          cursor: { type: 'string' },
        },
      },
    },
  },
});

const seenResponse = defineSchema({ type: 'object', required: ['attention_cursor'], properties: { attention_cursor: { type: 'string' } } });

/** The caller's own automation, else 404 `automation_not_found` (another account's too). */
function ownAutomation(store: AutomationStore, principal: Principal, automationId: string): AutomationRecord {
  const record = isUuid(automationId) ? store.get(automationId) : undefined;
  if (!record || record.account !== principal.account || record.tenant !== principal.tenant) throw automationNotFound(automationId);
  return record;
}

export function engineRoutes(store: AutomationStore, readers: OccurrenceReaders) {
  return [
    route({
      method: 'GET', path: '/automations/:automation_id/occurrences', tags: ['automations'],
      summary: "An automation's occurrences, newest first (one row per logical occurrence: its latest attempt; skipped ticks as skipped rows)",
      params, query: pageQuery, responses: { 200: { schema: occurrencePage } },
      handler: ({ params: p, query, principal }) => readers.occurrencePage(ownAutomation(store, principal, p.automation_id), query.cursor, query.limit ?? 50),
    }),
    route({
      method: 'GET', path: '/automations/:automation_id/attention', tags: ['automations'],
      summary: "The caller's unseen attention items of an automation (notifications and failures), oldest first",
      params, query: pageQuery, responses: { 200: { schema: attentionPage } },
      handler: ({ params: p, query, principal }) => readers.attentionPage(principal.account, ownAutomation(store, principal, p.automation_id), query.cursor, query.limit ?? 50),
    }),
    route({
      method: 'POST', path: '/automations/:automation_id/seen', tags: ['automations'],
      summary: "Moves the caller's seen cursor forward (never back) to the last attention item displayed",
      params, body: seenBody, responses: { 200: { schema: seenResponse } },
      handler: ({ params: p, body, principal }) => readers.markSeen(principal.account, ownAutomation(store, principal, p.automation_id), body.attention_cursor),
    }),
  ];
}
