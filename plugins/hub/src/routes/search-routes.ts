/** `GET /search`: membership-scoped keyword search, fused with semantic search when it is on and ready; paced by a per-seat budget (30/min, burst 10). */
import { route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { TokenBucket } from '../limits/token-bucket.js';
import { searchQuerySchema, searchRequest } from '../search/search-request.js';
import type { SearchService } from '../search/search-service.js';
import type { SemanticSearch } from '../search/semantic/semantic-search.js';

export function searchRoutes(hub: Hub, service: SearchService, semantic: SemanticSearch) {
  const budget = new TokenBucket({ perMinute: 30, burst: 10, refusal: (s) => `search budget exhausted; retry in ${s}s` });
  return [
    route({
      method: 'GET', path: '/search', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Search messages, files, work and people in your channels',
      query: searchQuerySchema,
      handler: async ({ principal: seat, query }) => {
        const request = searchRequest(query);
        budget.take(seat.id);
        return service.search(seat, request, await semantic.plan(seat, request));
      },
    }),
  ];
}
