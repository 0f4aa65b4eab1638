/** `GET /v1/models` (reference §1.4): the catalog with the `relay` block; `refresh=true` reads every catalog again. */
import { defineSchema, route, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import type { TrafficSink } from '../contracts.js';
import { openExchange } from './exchange-records.js';
import type { RelayModelCatalog } from './model-catalog.js';

const modelsQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { refresh: { type: 'boolean', default: false, description: 'Read the hosted and local catalogs again instead of their caches.' } },
});

export function modelsRoute(catalog: RelayModelCatalog, auth: RouteAuth, traffic: TrafficSink): AnyRoute {
  return route({
    method: 'GET',
    path: '/models',
    summary: 'List the models: hosted (upstream catalog order), configured extras, then the local client\'s, each with the `relay` block',
    description: 'Hosted catalogs are cached for hosted.modelsCacheTtlSeconds (0: never); `refresh=true` bypasses the caches. A hosted failure with local client models present answers those alone; with nothing to list, the hosted error.',
    tags: ['relay'],
    auth,
    query: modelsQuery,
    handler: ({ query, principal, koa }) => {
      const exchange = openExchange(traffic, principal, koa, undefined);
      return exchange.answer(async () => ({ object: 'list', data: await catalog.list(query.refresh, exchange.requestId) }));
    },
  }) as AnyRoute;
}
