/** `GET /openai-api` (status), `GET /openai-api/logs`, and the admin switches under `/admin/core-endpoint`. */
import { route, defineSchema } from '@keel/plugin-sdk';
import type { ApiSettings } from '../api-settings.js';
import type { InferenceService } from '../inference-service.js';
import type { RequestLog } from '../request-log.js';

const logsQuery = defineSchema({
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, account: { type: 'string' } },
});
const defaultsBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { chat_model: { type: 'string', minLength: 1 }, embedding_model: { type: 'string', minLength: 1 } },
});

export function statusRoutes(service: InferenceService, settings: ApiSettings, log: RequestLog, openaiPrefix: () => string, legacyPrefix: () => string) {
  const status = () => {
    const s = settings.get();
    return {
      enabled: s.enabled,
      base_path: openaiPrefix(),
      legacy_base_path: legacyPrefix(),
      auth: 'gateway bearer token as the API key',
      default_chat_model: s.default_chat_model,
      default_embedding_model: s.default_embedding_model,
      requests_total: log.requestsTotal,
      updated_at: s.updated_at,
      updated_by: s.updated_by,
    };
  };
  const admin = '/admin/core-endpoint';
  return [
    route({ method: 'GET', path: '/openai-api', tags: ['openai-api'], summary: 'Status of the OpenAI-compatible API', handler: status }),
    route({
      method: 'GET',
      path: '/openai-api/logs',
      tags: ['openai-api'],
      summary: 'Recent /v1 requests, newest first (an admin sees every account, others their own); no content, no keys',
      query: logsQuery,
      handler: ({ query, principal }) => {
        const isAdmin = principal.roles.includes('admin');
        return { items: log.recent(query.limit, isAdmin ? query.account : principal.account) };
      },
    }),
    route({ method: 'GET', path: admin, auth: 'admin', tags: ['openai-api'], summary: 'Settings of the OpenAI-compatible API', handler: status }),
    route({
      method: 'POST',
      path: `${admin}/enable`,
      auth: 'admin',
      tags: ['openai-api'],
      summary: 'Switch the OpenAI-compatible API on',
      handler: async ({ principal }) => {
        await settings.update({ enabled: true }, principal.account);
        return status();
      },
    }),
    route({
      method: 'POST',
      path: `${admin}/disable`,
      auth: 'admin',
      tags: ['openai-api'],
      summary: 'Switch the OpenAI-compatible API off (its routes answer 503)',
      handler: async ({ principal }) => {
        await settings.update({ enabled: false }, principal.account);
        return status();
      },
    }),
    route({
      method: 'PUT',
      path: `${admin}/defaults`,
      auth: 'admin',
      tags: ['openai-api'],
      summary: 'Set the default chat and embedding models (each must resolve)',
      body: defaultsBody,
      handler: async ({ body, principal }) => {
        if (body.chat_model) await service.resolve(principal.account, body.chat_model, 'chat');
        if (body.embedding_model) await service.resolve(principal.account, body.embedding_model, 'embedding');
        await settings.update(
          { ...(body.chat_model ? { default_chat_model: body.chat_model } : {}), ...(body.embedding_model ? { default_embedding_model: body.embedding_model } : {}) },
          principal.account,
        );
        return status();
      },
    }),
  ];
}
