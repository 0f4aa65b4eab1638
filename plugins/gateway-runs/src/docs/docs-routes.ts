/**
 * `GET /docs/corpus[?app=<id>]` (seed 000 §4.7, §8; reference gateway-surfaces §9.1): the text a
 * docs question is grounded in. `gateway` (or no `app`) is Keel's own documentation; the five app
 * ids are fetched from the app on loopback; anything else is a 404 naming the cause. Any signed-in
 * principal may read it: it is documentation, never account data.
 */
import { defineSchema, route } from '@keel/plugin-sdk';
import { appCorpus, isDocsApp, DOCS_APPS, type AppCorpusSettings } from './app-corpus.js';
import { corpusNotFound } from './corpus-text.js';
import { gatewayCorpus, type GatewayCorpusPlaces } from './gateway-corpus.js';

const corpusQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { app: { type: 'string', maxLength: 200, description: '`gateway` (default) or one of flow, code, observer, continuum, entity' } },
});

const corpusResponse = defineSchema({
  type: 'object',
  required: ['app', 'source', 'chars', 'text'],
  properties: {
    app: { type: 'string', description: 'display name of the documented application' },
    source: { type: 'string', description: 'env:KEEL_DOCS_CORPUS, checkout:llms.txt, packaged:llms.txt or app:<id>:llms.txt' },
    chars: { type: 'integer', description: 'length of text in Unicode code points' },
    text: { type: 'string' },
  },
});

export function docsRoutes(d: { gateway: GatewayCorpusPlaces; apps: AppCorpusSettings }) {
  return [
    route({
      method: 'GET',
      path: '/docs/corpus',
      tags: ['docs'],
      summary: "A documentation corpus for docs questions: Keel's own (app omitted or `gateway`) or a companion app's llms.txt",
      query: corpusQuery,
      responses: { 200: { schema: corpusResponse } },
      handler: async ({ query }) => {
        const app = (query.app ?? '').trim() || 'gateway';
        if (app === 'gateway') return gatewayCorpus(d.gateway);
        if (isDocsApp(app)) return appCorpus(app, d.apps);
        throw corpusNotFound('unknown_app', `Unknown app '${app}'; use gateway or one of ${Object.keys(DOCS_APPS).join(', ')}.`, { app });
      },
    }),
  ];
}
