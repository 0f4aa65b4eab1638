/** The hub charter's history (reference §8.4): the published versions and any archived text, for any seat; reading records no receipt. */
import { charterHistoryQuery, charterHistoryResponse, charterVersionParams, charterVersionResponse } from '@keel/hub-client/wire';
import { defineSchema, notFound, route } from '@keel/plugin-sdk';
import { PACKAGED_HUB_CHARTER } from '../content/charter/packaged-charters.js';
import type { HubContent } from '../content/hub-content.js';
import type { Hub } from '../hub.js';

const HISTORY_MAX = 500;

export function charterHistoryRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'GET', path: '/charter/history', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Published hub charter versions, newest first (limit 1..500, default 50)',
      query: defineSchema(charterHistoryQuery), responses: { 200: { schema: defineSchema(charterHistoryResponse) } },
      handler: ({ query }) => content.hubCharter.history(Math.min(HISTORY_MAX, Math.max(1, query.limit)))
        .map((v) => ({ version: v.version, updated_by: v.updated_by, updated_at: v.updated_at ?? 0, size: [...v.text].length })),
    }),
    route({
      method: 'GET', path: '/charter/versions/:version', auth: hub.auth.seatKey, tags: ['hub'], summary: 'One archived hub charter text (0 = the packaged default)',
      params: defineSchema(charterVersionParams), responses: { 200: { schema: defineSchema(charterVersionResponse) } },
      handler: ({ params }) => {
        if (params.version === 0) return { version: 0, text: PACKAGED_HUB_CHARTER, updated_by: '', updated_at: 0 };
        const v = content.hubCharter.published(params.version);
        if (!v) throw notFound(`hub charter version ${params.version} is not in the archive (0 = the packaged default)`);
        return { text: v.text, version: v.version, updated_by: v.updated_by, updated_at: v.updated_at ?? 0 };
      },
    }),
  ];
}
