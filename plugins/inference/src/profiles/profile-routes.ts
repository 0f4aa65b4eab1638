/** Provider connection profiles (`/config/provider-endpoint-profiles`), per account; keys are never returned. */
import { badRequest, reply, route, defineSchema, KEY_ID_MAX_LENGTH } from '@keel/plugin-sdk';
import { RemoteProvider } from '../providers/remote-provider.js';
import { ProfileStore } from './profile-store.js';

const NAME = '^[a-z0-9][a-z0-9._-]{0,63}$';

const profileFields = {
  name: { type: 'string', pattern: NAME, description: 'Provider name becomes endpoint:<name>.' },
  kind: { enum: ['cloud', 'local', 'compatible'] },
  base_url: { type: 'string', pattern: '^https?://[^\\s]+$', description: 'OpenAI-compatible base URL, e.g. https://api.example.com/v1' },
  enabled: { type: 'boolean' },
  models: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, description: 'Fixed allowlist; empty means the live catalog.' },
  default_model: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] },
  api_key: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }], description: 'Held by the server; never returned.' },
} as const;

const createBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'base_url'],
  properties: profileFields,
});
const updateBody = defineSchema({ type: 'object', additionalProperties: false, minProperties: 1, properties: profileFields });
const idParams = defineSchema({ type: 'object', required: ['profile_id'], properties: { profile_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const discoverBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { profile_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH }, base_url: profileFields.base_url, api_key: { type: 'string', minLength: 1 } },
});

export function profileRoutes(store: ProfileStore) {
  const base = '/config/provider-endpoint-profiles';
  return [
    route({
      method: 'GET',
      path: base,
      tags: ['configuration'],
      summary: "The caller's endpoint profiles (keys never returned)",
      handler: ({ principal }) => ({ items: store.list(principal.account).map(ProfileStore.view) }),
    }),
    route({
      method: 'POST',
      path: base,
      tags: ['configuration'],
      summary: 'Create an endpoint profile',
      body: createBody,
      handler: async ({ body, principal }) => reply(201, ProfileStore.view(await store.create(principal.account, body))),
    }),
    route({
      method: 'PUT',
      path: `${base}/:profile_id`,
      tags: ['configuration'],
      summary: 'Update an endpoint profile (named fields replace; api_key null removes the key)',
      params: idParams,
      body: updateBody,
      handler: async ({ params, body, principal }) => ProfileStore.view(await store.update(principal.account, params.profile_id, body)),
    }),
    route({
      method: 'DELETE',
      path: `${base}/:profile_id`,
      tags: ['configuration'],
      summary: 'Delete an endpoint profile',
      params: idParams,
      handler: async ({ params, principal }) => {
        await store.remove(principal.account, params.profile_id);
        return reply(204);
      },
    }),
    route({
      method: 'POST',
      path: `${base}/discover-models`,
      tags: ['configuration'],
      summary: "List a saved or draft profile's models from the endpoint's live catalog",
      body: discoverBody,
      handler: async ({ body, principal }) => {
        let baseUrl: string;
        let apiKey: string | null;
        let name: string;
        if (body.profile_id) {
          const profile = store.get(principal.account, body.profile_id);
          baseUrl = body.base_url ?? profile.base_url;
          apiKey = body.api_key ?? store.apiKey(profile);
          name = `endpoint:${profile.name}`;
        } else {
          if (!body.base_url) throw badRequest('Give profile_id (a saved profile) or base_url (a draft).', { code: 'invalid_request', field: 'body.base_url' });
          baseUrl = body.base_url;
          apiKey = body.api_key ?? null;
          name = 'draft';
        }
        const probe = new RemoteProvider({ info: { name, kind: 'endpoint', label: name, catalog: 'live_catalog', base_url: baseUrl }, baseUrl, apiKey, models: [], timeoutMs: 15_000, catalogTtlMs: 0 });
        const models = await probe.listModels({ refresh: true });
        return { base_url: baseUrl, source: 'live_catalog', models: models.map((m) => ({ id: m.name })) };
      },
    }),
  ];
}
