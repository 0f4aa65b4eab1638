/** `GET /search`: membership-scoped lexical search, paced by a per-seat budget (30/min, burst 10). */
import { route } from '@keel/plugin-sdk';
import { HubContent } from '../content/hub-content.js';
import type { Hub } from '../hub.js';
import { TokenBucket } from '../limits/token-bucket.js';
import { AgentSource } from '../search/agent-source.js';
import { FileSource } from '../search/file-source.js';
import { MessageIndex } from '../search/message-index.js';
import { MessageSource } from '../search/message-source.js';
import { searchQuerySchema, searchRequest } from '../search/search-request.js';
import { SearchService } from '../search/search-service.js';
import { StoreSource } from '../search/store-source.js';

export function searchRoutes(hub: Hub) {
  const index = new MessageIndex(hub.db, hub.live);
  const content = HubContent.of(hub);
  const sources = [new MessageSource(hub, index), new StoreSource(content.store), new AgentSource(hub), new FileSource(content.fs)];
  const service = new SearchService(hub, sources);
  const budget = new TokenBucket({ perMinute: 30, burst: 10, refusal: (s) => `search budget exhausted; retry in ${s}s` });
  return [
    route({
      method: 'GET', path: '/search', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Search messages, files, work and people in your channels',
      query: searchQuerySchema,
      handler: ({ principal: seat, query }) => {
        const request = searchRequest(query);
        budget.take(seat.id);
        return service.search(seat, request);
      },
    }),
  ];
}
