/**
 * Administering the workflow catalog (seed 000 §4.2; reference gateway-surfaces §6.2), admin only:
 * upload or promote immutable versions, move the default pointer, set ACLs, deprecate, block or
 * tombstone a version (its bytes are never deleted).
 */
import { readFile } from 'node:fs/promises';
import { badRequest, notFound, reply, route, defineSchema, KEY_ID_MAX_LENGTH, type Principal } from '@keel/plugin-sdk';
import { bundleRefusal } from './bundle-refusal.js';
import { normalizeAcl, type CatalogAcl, type CatalogRecord } from '../catalog/catalog-record.js';
import type { CatalogStore, PublishInput } from '../catalog/catalog-store.js';
import type { WorkflowSources } from './agent-defaults.js';
import { catalogRow, catalogTarget } from './catalog-routes.js';

interface AclFields {
  roles?: string | string[];
  users?: string | string[];
  deny_users?: string | string[];
}

const aclList = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } as const;
const aclProperties = { roles: aclList, users: aclList, deny_users: aclList } as const;

const uploadBody = defineSchema({
  type: 'object',
  properties: { scope: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, tenant_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, roles: { type: 'string' }, users: { type: 'string' }, deny_users: { type: 'string' }, make_default: { type: 'boolean' } },
});
const promoteBody = defineSchema({
  type: 'object',
  required: ['bundle_id'],
  properties: {
    bundle_id: { type: 'string', minLength: 1, maxLength: 200 },
    bundle_version: { type: 'string', minLength: 1, maxLength: 100 },
    scope: { type: 'string' },
    tenant_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
    make_default: { type: 'boolean' },
    acl: { type: 'object', additionalProperties: false, properties: aclProperties },
  },
});
const aclBody = defineSchema({ type: 'object', additionalProperties: false, properties: aclProperties });
const reasonBody = defineSchema({ type: 'object', properties: { reason: { type: 'string', maxLength: 2000 } } });
const versionParams = defineSchema({
  type: 'object',
  required: ['bundle_id', 'bundle_version'],
  properties: { bundle_id: { type: 'string', minLength: 1, maxLength: 200 }, bundle_version: { type: 'string', minLength: 1, maxLength: 100 } },
});
const targetQuery = defineSchema({
  type: 'object',
  properties: { scope: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, tenant_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, reason: { type: 'string', maxLength: 2000 } },
});

export interface CatalogAdminRoutesDeps {
  catalog: CatalogStore;
  sources: WorkflowSources;
}

/** An ACL when the request gives any ACL field, else null (an existing version keeps its ACL). */
function aclOf(fields: AclFields | undefined): CatalogAcl | null {
  if (!fields || (fields.roles === undefined && fields.users === undefined && fields.deny_users === undefined)) return null;
  return normalizeAcl(fields);
}

export function catalogAdminRoutes(d: CatalogAdminRoutesDeps) {
  const row = (record: CatalogRecord, principal: Principal) => catalogRow(d.catalog, record, principal, true, null);
  const publish = async (input: PublishInput, principal: Principal) => {
    try {
      const { record, created } = await d.catalog.publish(input);
      // Catalog bundles are read when a run starts, so there is no host to reload.
      return reply(created ? 201 : 200, { ok: true, created, record: row(record, principal), reload: null });
    } catch (err) {
      const refusal = bundleRefusal(err);
      if (refusal) throw refusal;
      throw err;
    }
  };
  const base = '/admin/workflow-catalog/:bundle_id/versions/:bundle_version';
  return [
    route({
      method: 'POST',
      path: '/admin/workflow-catalog/upload',
      auth: 'admin',
      tags: ['catalog'],
      summary: 'Publish an immutable catalog version (multipart `file`, `scope`, `tenant_id`, `roles`, `users`, `deny_users`, `make_default`)',
      bodyKind: 'multipart',
      body: uploadBody,
      handler: async ({ body, files, principal }) => {
        const file = files.file?.[0];
        if (!file) throw badRequest('Send the bundle as the multipart field `file`.', { code: 'invalid_request', field: 'body.file' });
        const { scope, tenant } = catalogTarget(body, principal, true, 'body');
        const bytes = new Uint8Array(await readFile(file.filepath));
        return publish({ scope, tenant, bytes, publisher: principal.account, acl: aclOf(body), makeDefault: body.make_default, origin: 'upload' }, principal);
      },
    }),
    route({
      method: 'POST',
      path: '/admin/workflow-catalog/promote',
      auth: 'admin',
      tags: ['catalog'],
      summary: "Copy a bundle the admin can run (its private ones, the shared directory, the shipped ones) into the catalog",
      body: promoteBody,
      handler: async ({ body, principal }) => {
        const { scope, tenant } = catalogTarget(body, principal, true, 'body');
        const entry = d.sources.bundles.find(principal.account, body.bundle_id, body.bundle_version);
        if (!entry) throw notFound(`Bundle '${body.bundle_id}${body.bundle_version ? `@${body.bundle_version}` : ''}' is not installed, so it cannot be promoted.`, { code: 'bundle_not_found' });
        const bytes = new Uint8Array(await readFile(entry.file));
        return publish({ scope, tenant, bytes, publisher: principal.account, acl: aclOf(body.acl), makeDefault: body.make_default, origin: 'promote' }, principal);
      },
    }),
    route({
      method: 'POST',
      path: `${base}/default`,
      auth: 'admin',
      tags: ['catalog'],
      summary: "Move a bundle's default pointer to a published version",
      params: versionParams,
      query: targetQuery,
      handler: async ({ params, query, principal }) => {
        const { scope, tenant } = catalogTarget(query, principal, true);
        const record = await d.catalog.setDefault(scope, tenant, params.bundle_id, params.bundle_version, principal.account);
        return { ok: true, record: row(record, principal), default_version: record.bundle_version };
      },
    }),
    route({
      method: 'PUT',
      path: `${base}/acl`,
      auth: 'admin',
      tags: ['catalog'],
      summary: 'Replace the ACL of a version (`roles`, `users`, `deny_users`: lists or comma strings)',
      params: versionParams,
      query: targetQuery,
      body: aclBody,
      handler: async ({ params, query, body, principal }) => {
        const { scope, tenant } = catalogTarget(query, principal, true);
        const record = await d.catalog.setAcl(scope, tenant, params.bundle_id, params.bundle_version, normalizeAcl(body), principal.account);
        return { ok: true, record: row(record, principal) };
      },
    }),
    ...(['deprecate', 'block'] as const).map((action) =>
      route({
        method: 'POST',
        path: `${base}/${action}`,
        auth: 'admin',
        tags: ['catalog'],
        summary: `${action === 'block' ? 'Block' : 'Deprecate'} a version: it no longer starts and leaves the default pointer`,
        params: versionParams,
        query: targetQuery,
        body: reasonBody,
        handler: async ({ params, query, body, principal }) => {
          const { scope, tenant } = catalogTarget(query, principal, true);
          const status = action === 'block' ? 'blocked' : 'deprecated';
          const record = await d.catalog.setStatus(scope, tenant, params.bundle_id, params.bundle_version, status, body.reason?.trim() || query.reason?.trim() || null, principal.account);
          return { ok: true, record: row(record, principal) };
        },
      })),
    route({
      method: 'DELETE',
      path: base,
      auth: 'admin',
      tags: ['catalog'],
      summary: 'Tombstone a version (`?reason=`): it never starts again; its bytes are kept',
      params: versionParams,
      query: targetQuery,
      handler: async ({ params, query, principal }) => {
        const { scope, tenant } = catalogTarget(query, principal, true);
        const record = await d.catalog.setStatus(scope, tenant, params.bundle_id, params.bundle_version, 'tombstoned', query.reason?.trim() || null, principal.account);
        return { ok: true, record: row(record, principal), deleted_bytes: false };
      },
    }),
  ];
}
