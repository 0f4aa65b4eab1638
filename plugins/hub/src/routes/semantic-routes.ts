/**
 * Semantic search's operator surfaces (reference §8.6, op/adm): the embedding setting
 * (`GET|PUT|DELETE /admin/embedding`), the index drift report (`GET /admin/search/drift`) and the
 * rebuild (`POST /admin/search/rebuild`).
 */
import { embeddingDisableQuery, embeddingSettingBody } from '@keel/hub-client/wire';
import { badRequest, defineSchema, route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import type { SearchIndexes } from '../search/semantic/search-indexes.js';
import { operatorAct } from './operator-act.js';

const settingBody = defineSchema(embeddingSettingBody);
const disableQuery = defineSchema(embeddingDisableQuery);

export function semanticRoutes(hub: Hub, indexes: SearchIndexes) {
  const { semantic } = indexes;
  return [
    route({
      method: 'GET', path: '/admin/embedding', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: "Semantic search's embedding model and how far its vectors are filled",
      handler: operatorAct('embedding status is an operator surface', () => semantic.status()),
    }),
    route({
      method: 'PUT', path: '/admin/embedding', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Choose the embedding model (an inference plugin model id); probes it first',
      body: settingBody,
      handler: operatorAct('embedding config is an operator act', (actor, { body }) => {
        if (body.url) {
          throw badRequest("this hub embeds through the inference plugin, not a url — configure the endpoint in the inference plugin's `endpoints` (or a provider endpoint profile) and name its model here as '<endpoint>/<model>'");
        }
        return semantic.choose(body.model, body.accept_recompute, actor.id);
      }),
    }),
    route({
      method: 'DELETE', path: '/admin/embedding', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Turn semantic search off (erase=true also deletes the stored vectors)',
      query: disableQuery,
      handler: operatorAct('embedding config is an operator act', (actor, { query }) => semantic.disable(query.erase, actor.id)),
    }),
    route({
      method: 'GET', path: '/admin/search/drift', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'How far the search indexes are from the messages and files they cover',
      handler: operatorAct('search drift is an operator view', () => indexes.drift()),
    }),
    route({
      method: 'POST', path: '/admin/search/rebuild', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Rebuild the keyword index and re-check every vector (missing or stale ones are re-embedded in the background)',
      handler: operatorAct('search rebuild is an operator act', () => indexes.rebuild()),
    }),
  ];
}
