/**
 * Lists and reads (seed §4.6, reference §2.4): `GET /runs/{run_id}/artifacts`,
 * `GET /sessions/{session_id}/artifacts`, `GET /runs/{run_id}/artifacts/{artifact_id}` and its
 * `/content`. Another account's run or session answers 404, as an unknown one does.
 */
import { defineSchema, KEY_ID_MAX_LENGTH, notFound, route, sendFile, type AnyRoute } from '@keel/plugin-sdk';
import type { ArtifactsConfig } from '../artifact-config.js';
import type { ArtifactIndex } from '../artifact-index.js';
import { pageOf, rowOf } from '../artifact-page.js';
import type { ArtifactScopes } from '../artifact-scope.js';
import type { BlobStore } from '../blob-store.js';
import { accessActionOf, dispositionFor } from '../content-disposition-policy.js';
import { pageResponse, rowSchema } from './response-schemas.js';

const runParams = defineSchema({ type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const sessionParams = defineSchema({ type: 'object', required: ['session_id'], properties: { session_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const artifactParams = defineSchema({
  type: 'object',
  required: ['run_id', 'artifact_id'],
  properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH }, artifact_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});
const pageQuery = defineSchema({
  type: 'object',
  properties: { limit: { type: 'integer', minimum: -1, maximum: 100_000 }, offset: { type: 'integer', minimum: 0, maximum: 10_000_000 } },
});
const contentQuery = defineSchema({
  type: 'object',
  properties: { access_action: { type: 'string', maxLength: 32 }, access: { type: 'string', maxLength: 32 } },
});

export function artifactRoutes(index: ArtifactIndex, scopes: ArtifactScopes, blobs: BlobStore, config: ArtifactsConfig): AnyRoute[] {
  const limits = { defaultLimit: config.listDefaultLimit, maxLimit: config.listMaxLimit };
  return [
    route({
      method: 'GET',
      path: '/runs/:run_id/artifacts',
      summary: "A run's artifacts (a session's memory run `session_memory_<id>`: the session's uploads and imports)",
      tags: ['artifacts'],
      params: runParams,
      query: pageQuery,
      responses: { 200: { schema: pageResponse } },
      handler: async ({ params, query, principal }) => {
        const scope = await scopes.ofRun(principal, params.run_id);
        const records = scope.run
          ? index.scan(scope.account, { runId: scope.run_id })
          : [...index.scan(scope.account, { sessionId: scope.session_id! })].filter((r) => r.run_id === null);
        return pageOf(records, query, limits);
      },
    }),
    route({
      method: 'GET',
      path: '/sessions/:session_id/artifacts',
      summary: "The artifacts a session sees: its own and those its owner shared with every session (`shared: user`)",
      tags: ['artifacts'],
      params: sessionParams,
      query: pageQuery,
      responses: { 200: { schema: pageResponse } },
      handler: async ({ params, query, principal }) => {
        const account = principal.account;
        if (!(await scopes.sessionExists(account, params.session_id))) {
          throw notFound({ reason_code: 'session_not_found', message: `Session ${params.session_id} does not exist.` });
        }
        const own = [...index.scan(account, { sessionId: params.session_id })];
        const ids = new Set(own.map((r) => r.artifact_id));
        const shared = [...index.sharedOf(account)].filter((r) => !ids.has(r.artifact_id));
        return pageOf([...own, ...shared], query, limits);
      },
    }),
    route({
      method: 'GET',
      path: '/runs/:run_id/artifacts/:artifact_id',
      summary: "One artifact's metadata",
      tags: ['artifacts'],
      params: artifactParams,
      responses: { 200: { schema: defineSchema(rowSchema) } },
      handler: async ({ params, principal }) => {
        const scope = await scopes.ofRun(principal, params.run_id);
        return rowOf(scopes.artifactIn(scope, params.artifact_id));
      },
    }),
    route({
      method: 'GET',
      path: '/runs/:run_id/artifacts/:artifact_id/content',
      summary: 'The bytes of an artifact (access_action content, preview or download; alias access); Range honoured',
      description: 'Inline only for raster images (png, jpeg, gif, webp, avif, bmp) and never for a download; everything else is an attachment. Always nosniff and `Content-Security-Policy: sandbox`.',
      tags: ['artifacts'],
      params: artifactParams,
      query: contentQuery,
      responses: { 200: { contentType: 'application/octet-stream' } },
      handler: async ({ params, query, principal, koa }) => {
        const scope = await scopes.ofRun(principal, params.run_id);
        const record = scopes.artifactIn(scope, params.artifact_id);
        const action = accessActionOf(query);
        return sendFile(koa, {
          root: blobs.rootOf(record.account),
          file: blobs.relativePath(record.sha256),
          contentType: record.content_type,
          disposition: dispositionFor(action, record.content_type),
          filename: record.filename,
          etag: `"${record.sha256}"`,
          notFoundMessage: 'artifact not found',
        });
      },
    }),
  ] as AnyRoute[];
}
