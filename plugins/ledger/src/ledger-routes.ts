/** Ledger reads: a page, a batch over several runs, and the live stream. Another account's run is 404. */
import { badRequest, HANDLED, notFound, route, defineSchema, KEY_ID_MAX_LENGTH, type Principal } from '@keel/plugin-sdk';
import type { LedgerStore } from './ledger-store.js';
import type { LedgerLiveBus } from './live-bus.js';
import { resumeCursor, streamLedger } from './ledger-stream.js';
import type { RunMeta } from './records.js';
import type { TailRegistry } from './tail-registry.js';

const runParams = defineSchema({ type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const pageQuery = defineSchema({
  type: 'object',
  properties: { after: { type: 'integer', minimum: 0, default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 2000, default: 200 } },
});
const streamQuery = defineSchema({
  type: 'object',
  properties: { after: { type: 'integer', minimum: 0 }, heartbeat_s: { type: 'number', minimum: 0.05, maximum: 300, default: 5 } },
});
const batchBody = defineSchema({
  type: 'object',
  required: ['runs'],
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 2000, default: 200 },
    runs: {
      type: 'array',
      maxItems: 500,
      items: { type: 'object', required: ['run_id'], additionalProperties: false, properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH }, after: { type: 'integer', minimum: 0, default: 0 } } },
    },
  },
});

/** A page of a run ledger (seed 000 §2.3): `next_after` is the `after` of the next page. */
const pageJson = {
  type: 'object', required: ['items', 'next_after'], properties: { items: { type: 'array', items: { type: 'object' } }, next_after: { type: 'integer', minimum: 0 } },
} as const;
const pageResponse = defineSchema(pageJson);
const batchResponse = defineSchema({ type: 'object', required: ['runs'], properties: { runs: { type: 'object', additionalProperties: pageJson } } });

export function ledgerRoutes(store: LedgerStore, hub: LedgerLiveBus, tails: TailRegistry) {
  const owned = (principal: Principal, runId: string): RunMeta => {
    const meta = store.runMeta(runId);
    if (!meta || meta.account !== principal.account) throw notFound(`Run '${runId}' not found.`);
    return meta;
  };
  return [
    route({
      method: 'GET',
      path: '/runs/:run_id/ledger',
      tags: ['runs'],
      summary: 'A page of the run ledger: records after `after` (a count of records consumed)',
      params: runParams,
      query: pageQuery,
      responses: { 200: { schema: pageResponse } },
      handler: ({ params, query, principal }) => {
        owned(principal, params.run_id);
        return store.page(params.run_id, query.after, query.limit);
      },
    }),
    route({
      method: 'POST',
      path: '/runs/ledger/batch',
      tags: ['runs'],
      summary: 'Pages of several run ledgers at once (unknown or foreign runs are skipped)',
      body: batchBody,
      responses: { 200: { schema: batchResponse } },
      handler: ({ body, principal }) => {
        const runs: Record<string, unknown> = {};
        for (const r of body.runs) {
          const meta = store.runMeta(r.run_id);
          if (meta && meta.account === principal.account) runs[r.run_id] = store.page(r.run_id, r.after, body.limit);
        }
        return { runs };
      },
    }),
    route({
      method: 'GET',
      path: '/runs/:run_id/ledger/stream',
      tags: ['runs'],
      summary: 'Live ledger (SSE): step events with id = cursor, llm.delta / llm.delta_end, done last',
      params: runParams,
      query: streamQuery,
      responses: { 200: { contentType: 'text/event-stream' } },
      handler: async ({ params, query, principal, koa, signal }) => {
        const meta = owned(principal, params.run_id);
        const after = koa.get('last-event-id') ? resumeCursor(koa) : query.after ?? 0;
        if (after < 0) throw badRequest('Last-Event-ID must be a cursor (a non-negative integer).', { code: 'invalid_request', field: 'headers.last-event-id' });
        await streamLedger(koa, meta, store, hub, tails, { after, heartbeatMs: query.heartbeat_s * 1000, signal });
        return HANDLED;
      },
    }),
  ];
}
