/**
 * `POST /visualflows/{flow_id}/publish` (seed 000 §4.2), admin only: a VisualFlow JSON (as an
 * editor saves it) becomes a `.flow` bundle in the gateway's shared bundle directory, listed with
 * `source: published` and runnable by every account. The bundle is packed here and installed
 * through the same reader and limits as an upload, so a broken flow is refused with the reason.
 */
import { createHash } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import { conflict, defineSchema, KEY_ID_MAX_LENGTH, reply, route, badRequest, type Principal } from '@keel/plugin-sdk';
import { BundleConflict, compareVersions, PUBLISHED_FROM_VISUALFLOW, type BundleRegistry } from '../bundles/bundle-registry.js';
import { bundleRefusal } from './bundle-refusal.js';

const ID = '^[A-Za-z0-9_-]+$';
const flowJson = { type: 'object', required: ['nodes', 'edges'], properties: { id: { type: 'string' }, nodes: { type: 'array' }, edges: { type: 'array' } } } as const;

const publishParams = defineSchema({ type: 'object', required: ['flow_id'], properties: { flow_id: { type: 'string', minLength: 1, maxLength: 200, pattern: ID } } });
const publishBody = defineSchema({
  type: 'object',
  required: ['flow'],
  additionalProperties: false,
  properties: {
    flow: { ...flowJson, description: 'the VisualFlow JSON of the entrypoint; its id is the path flow_id' },
    subflows: { type: 'array', items: { ...flowJson, required: ['id', 'nodes', 'edges'] }, default: [], description: 'flows its subflow nodes name, packed beside it' },
    bundle_id: { type: 'string', minLength: 1, maxLength: 200, pattern: ID, description: 'default: the flow_id' },
    bundle_version: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$', description: "default: the published bundle's latest version with its last number raised, else 1.0.0" },
    name: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 2000, default: '' },
    interfaces: { type: 'array', items: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH, pattern: '^\\S+$' }, default: [] },
    overwrite: { type: 'boolean', default: false },
  },
  examples: [{ flow: { name: 'Greeter', entryNode: 'start', nodes: ['<VisualFlow nodes>'], edges: ['<VisualFlow edges>'] }, interfaces: ['greeter.agent.v1'], description: 'Greets the user' }],
});
const publishResponse = defineSchema({
  type: 'object',
  required: ['bundle_id', 'bundle_version', 'flow_id', 'workflow_id', 'source', 'scope', 'replaced', 'sha256', 'entrypoints'],
  properties: {
    bundle_id: { type: 'string' }, bundle_version: { type: 'string' }, flow_id: { type: 'string' }, workflow_id: { type: 'string' },
    source: { const: 'published' }, scope: { const: 'shared' }, replaced: { type: 'boolean' }, sha256: { type: 'string' }, entrypoints: { type: 'array' },
  },
});

/** The next version of a published bundle: the latest one's last number raised (`1.2.9` → `1.2.10`), else `1.0.0`. */
function nextVersion(bundles: BundleRegistry, principal: Principal, bundleId: string): string {
  const shared = bundles.list(principal.account).filter((e) => e.scope === 'shared' && e.bundle.manifest.bundle_id === bundleId);
  const latest = shared.map((e) => e.bundle.manifest.bundle_version).sort(compareVersions).at(-1);
  if (!latest) return '1.0.0';
  const match = /^(.*?)(\d+)([^\d]*)$/.exec(latest);
  return match ? `${match[1]}${Number(match[2]) + 1}${match[3]}` : `${latest}.1`;
}

export function visualflowPublishRoutes(d: { bundles: BundleRegistry }) {
  return [
    route({
      method: 'POST',
      path: '/visualflows/:flow_id/publish',
      auth: 'admin',
      tags: ['bundles'],
      summary: 'Publish a VisualFlow JSON as a bundle in the shared bundle directory (source: published), runnable by every account',
      params: publishParams,
      body: publishBody,
      responses: { 201: { schema: publishResponse } },
      handler: async ({ params, body, principal }) => {
        const flowId = params.flow_id;
        if (body.flow.id !== undefined && body.flow.id !== flowId) {
          throw badRequest(`flow.id '${body.flow.id}' differs from the flow_id '${flowId}' in the path; publish it under its own id or drop flow.id.`, { code: 'invalid_request', field: 'body.flow.id' });
        }
        const subflows = body.subflows ?? [];
        const ids = new Set([flowId]);
        for (const sub of subflows) {
          if (!new RegExp(ID).test(sub.id)) throw badRequest(`subflow id '${sub.id}' may hold letters, digits, _ and - only.`, { code: 'invalid_request', field: 'body.subflows' });
          if (ids.has(sub.id)) throw badRequest(`The flow id '${sub.id}' is given twice.`, { code: 'invalid_request', field: 'body.subflows' });
          ids.add(sub.id);
        }
        const bundleId = body.bundle_id ?? flowId;
        const version = body.bundle_version ?? nextVersion(d.bundles, principal, bundleId);
        const name = body.name ?? (typeof (body.flow as Record<string, unknown>).name === 'string' ? ((body.flow as Record<string, unknown>).name as string) : flowId);
        const flows = [{ ...body.flow, id: flowId }, ...subflows];
        const manifest = {
          bundle_format_version: '1',
          bundle_id: bundleId,
          bundle_version: version,
          created_at: new Date().toISOString(),
          entrypoints: [{ flow_id: flowId, name, description: body.description ?? '', interfaces: body.interfaces ?? [] }],
          default_entrypoint: flowId,
          flows: Object.fromEntries(flows.map((f) => [f.id, `flows/${f.id}.json`])),
          metadata: { published_from: PUBLISHED_FROM_VISUALFLOW, published_by: principal.account },
        };
        const files: Record<string, Uint8Array> = { 'manifest.json': strToU8(JSON.stringify(manifest, null, 2)) };
        for (const f of flows) files[`flows/${f.id}.json`] = strToU8(JSON.stringify(f));
        const bytes = zipSync(files);
        try {
          const { entry, replaced } = await d.bundles.install(bytes, 'shared', principal.account, body.overwrite ?? false);
          const m = entry.bundle.manifest;
          return reply(201, {
            bundle_id: m.bundle_id,
            bundle_version: m.bundle_version,
            flow_id: flowId,
            workflow_id: `${m.bundle_id}@${m.bundle_version}:${flowId}`,
            source: 'published',
            scope: 'shared',
            replaced,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            entrypoints: m.entrypoints,
          });
        } catch (err) {
          const refusal = bundleRefusal(err);
          if (refusal && refusal.status !== 400) throw refusal;
          if (refusal) throw badRequest(refusal.message.replace(/^Invalid bundle: /, 'The flow cannot be published: '), { code: 'invalid_flow', field: 'body.flow' });
          if (err instanceof BundleConflict) throw conflict(`${bundleId}@${version} is already published; send overwrite: true to replace it, or leave bundle_version out to publish the next version.`, { code: 'bundle_exists' });
          throw err;
        }
      },
    }),
  ];
}
