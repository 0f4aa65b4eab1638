/**
 * `GET /v1/relay/traffic?limit=`: the most recent notable traffic records (compatibility
 * adaptations, failovers, retries, stream errors: reference §5.3 fields), newest first, from the
 * traffic log's in-memory ring. Behind the relay token; `limit` is 1..`ui.maxTrafficRecords`
 * (default the smaller of 50 and that). A monitoring read like the status route: it writes no
 * traffic record of its own, so polling the status page never fills the log.
 */
import { defineSchema, route, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import type { TrafficRecord } from '../contracts.js';

/** What this route reads of the traffic log (`TrafficLog.recent`). */
export interface RecentTraffic {
  /** Up to `n` notable records, oldest first (the route answers newest first). */
  recent(n: number): TrafficRecord[];
}

export const DEFAULT_TRAFFIC_LIMIT = 50;

export function trafficRoute(options: { auth: RouteAuth; traffic: RecentTraffic; maxRecords: number }): AnyRoute {
  const { auth, traffic, maxRecords } = options;
  return route({
    method: 'GET',
    path: '/relay/traffic',
    auth,
    tags: ['relay'],
    summary: 'Recent notable traffic: adaptations, failovers, retries, stream errors (newest first)',
    query: defineSchema({
      type: 'object',
      additionalProperties: false,
      properties: { limit: { type: 'integer', minimum: 1, maximum: maxRecords } },
    }),
    responses: {
      200: {
        schema: defineSchema({
          type: 'object',
          required: ['object', 'data', 'limit'],
          properties: {
            object: { const: 'list' },
            limit: { type: 'integer' },
            data: { type: 'array', items: { type: 'object', additionalProperties: true } },
          },
        }),
      },
    },
    handler: ({ query }) => {
      const limit = query.limit ?? Math.min(DEFAULT_TRAFFIC_LIMIT, maxRecords);
      return { object: 'list', limit, data: traffic.recent(limit).slice(-limit).reverse() };
    },
  }) as AnyRoute;
}
