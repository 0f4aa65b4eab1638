/**
 * Reading the shared workflow catalog (seed 000 §4.2; reference gateway-surfaces §6.2): the list
 * (with the default agent workflows, as `GET /bundles` has them), one bundle's versions, and the
 * ACL-aware flow and input-schema inspection. Non-admins see the published versions they may run
 * in their own tenant; another tenant's catalog is 403 for them.
 */
import { conflict, forbidden, notFound, route, defineSchema, KEY_ID_MAX_LENGTH, type Principal } from '@keel/plugin-sdk';
import { BundleError, type Bundle } from '../bundles/read-bundle.js';
import { unreadable } from '../catalog/catalog-pick.js';
import { actionsFor, bundleRef, parseCatalogScope, publicRecord, targetTenant, type CatalogRecord, type CatalogScope } from '../catalog/catalog-record.js';
import type { CatalogStore } from '../catalog/catalog-store.js';
import { flowInputSchema } from '../catalog/input-schema.js';
import { agentDefaultMarks, agentDefaultsView, type AgentDefaultsView, type WorkflowSources } from './agent-defaults.js';
import { workflowCatalogResponse } from './listing-responses.js';

interface CatalogQuery {
  scope?: string;
  tenant_id?: string;
  include_inactive?: boolean;
  include_denied?: boolean;
}

const catalogQuery = defineSchema({
  type: 'object',
  properties: { scope: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, tenant_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH }, include_inactive: { type: 'boolean', default: false }, include_denied: { type: 'boolean', default: false } },
});
const bundleParams = defineSchema({ type: 'object', required: ['bundle_id'], properties: { bundle_id: { type: 'string', minLength: 1, maxLength: 200 } } });
const flowParams = defineSchema({
  type: 'object',
  required: ['bundle_id', 'bundle_version', 'flow_id'],
  properties: { bundle_id: { type: 'string', minLength: 1, maxLength: 200 }, bundle_version: { type: 'string', minLength: 1, maxLength: 100 }, flow_id: { type: 'string', minLength: 1, maxLength: 200 } },
});

export interface CatalogRoutesDeps {
  catalog: CatalogStore;
  sources: WorkflowSources;
}

/** Where a catalog request points: its scope (framework → 501) and tenant (another tenant needs an admin). */
export function catalogTarget(query: { scope?: string; tenant_id?: string }, principal: Principal, isAdmin: boolean, where: 'query' | 'body' = 'query'): { scope: CatalogScope; tenant: string } {
  return { scope: parseCatalogScope(query.scope, `${where}.scope`), tenant: targetTenant(query.tenant_id, principal, isAdmin, `${where}.tenant_id`) };
}

/** A record as clients see it, entrypoints marked with the caller's default agent workflows. */
export function catalogRow(catalog: CatalogStore, record: CatalogRecord, principal: Principal, isAdmin: boolean, view: AgentDefaultsView | null) {
  const row = publicRecord(record, catalog.pointer(record.scope, record.tenant_id, record.bundle_id), principal, isAdmin);
  const ownTenant = view !== null && record.tenant_id === principal.tenant;
  return {
    ...row,
    entrypoints: record.entrypoints.map((ep) => ({
      ...ep,
      workflow_id: `${bundleRef(record)}:${ep.flow_id}`,
      ...(ownTenant ? agentDefaultMarks(view, 'tenant_catalog', record.bundle_id, record.bundle_version, ep.flow_id) : { is_agent_default: false, agent_default_interfaces: [] }),
    })),
  };
}

export function catalogRoutes(d: CatalogRoutesDeps) {
  const isAdmin = (p: Principal | null) => d.sources.isAdmin(p);
  const visible = (r: CatalogRecord, principal: Principal, admin: boolean, q: CatalogQuery) =>
    (r.status === 'published' || (admin && q.include_inactive === true)) && (actionsFor(r, principal, admin).can_inspect || (admin && q.include_denied === true));
  /** The record a flow route names, or 404; 403 when the caller may neither run nor inspect it. */
  const inspectable = (principal: Principal, q: CatalogQuery, p: { bundle_id: string; bundle_version: string; flow_id: string }) => {
    const admin = isAdmin(principal);
    const { scope, tenant } = catalogTarget(q, principal, admin);
    const record = d.catalog.get(scope, tenant, p.bundle_id, p.bundle_version);
    if (!record) throw notFound(`${p.bundle_id}@${p.bundle_version} is not in the catalog of tenant '${tenant}'.`, { code: 'catalog_version_not_found' });
    if (!actionsFor(record, principal, admin).can_inspect) throw forbidden(`You may not inspect ${bundleRef(record)} (it is ${record.status}, or its ACL does not allow account '${principal.account}').`, { code: 'forbidden' });
    let bundle: Bundle;
    try {
      bundle = d.catalog.bundleOf(record);
    } catch (err) {
      if (err instanceof BundleError) throw conflict(`${unreadable(record, err)}.`, { code: 'catalog_bundle_unreadable' });
      throw err;
    }
    const flow = bundle.flows.get(p.flow_id);
    if (!flow) throw notFound(`Flow '${p.flow_id}' is not in ${bundleRef(record)} (it has ${record.entrypoints.map((e) => e.flow_id).join(', ')}).`, { code: 'flow_not_found' });
    const head = { tenant_id: tenant, bundle_id: record.bundle_id, bundle_version: record.bundle_version, bundle_ref: bundleRef(record), flow_id: p.flow_id, workflow_id: `${bundleRef(record)}:${p.flow_id}` };
    return { record, flow, head };
  };
  return [
    route({
      method: 'GET',
      path: '/workflow-catalog',
      tags: ['catalog'],
      summary: 'The shared workflow catalog: the versions the caller may see, with the default agent workflows',
      query: catalogQuery,
      responses: { 200: { schema: workflowCatalogResponse } },
      handler: ({ query, principal }) => {
        const admin = isAdmin(principal);
        const { scope, tenant } = catalogTarget(query, principal, admin);
        const view = agentDefaultsView(principal, d.sources);
        const items = d.catalog.list(scope, tenant).filter((r) => visible(r, principal, admin, query)).map((r) => catalogRow(d.catalog, r, principal, admin, view));
        return { items, scope, tenant_id: tenant, count: items.length, ...view };
      },
    }),
    route({
      method: 'GET',
      path: '/workflow-catalog/:bundle_id',
      tags: ['catalog'],
      summary: "One catalog bundle's versions the caller may see",
      params: bundleParams,
      query: catalogQuery,
      handler: ({ params, query, principal }) => {
        const admin = isAdmin(principal);
        const { scope, tenant } = catalogTarget(query, principal, admin);
        const view = agentDefaultsView(principal, d.sources);
        const items = d.catalog.list(scope, tenant, params.bundle_id).filter((r) => visible(r, principal, admin, query)).map((r) => catalogRow(d.catalog, r, principal, admin, view));
        if (items.length === 0) throw notFound(`Workflow bundle '${params.bundle_id}' is not in the catalog of tenant '${tenant}'.`, { code: 'bundle_not_found' });
        return { items, scope, tenant_id: tenant, bundle_id: params.bundle_id };
      },
    }),
    route({
      method: 'GET',
      path: '/workflow-catalog/:bundle_id/versions/:bundle_version/flows/:flow_id',
      tags: ['catalog'],
      summary: 'A catalog flow (VisualFlow JSON), for callers who may run or administer it',
      params: flowParams,
      query: catalogQuery,
      handler: ({ params, query, principal }) => {
        const { record, flow, head } = inspectable(principal, query, params);
        return { ...head, status: record.status, entrypoint: record.entrypoints.find((e) => e.flow_id === params.flow_id) ?? null, flow: flow.flow };
      },
    }),
    route({
      method: 'GET',
      path: '/workflow-catalog/:bundle_id/versions/:bundle_version/flows/:flow_id/input_schema',
      tags: ['catalog'],
      summary: "A catalog flow's input schema (its start node's parameters)",
      params: flowParams,
      query: catalogQuery,
      handler: ({ params, query, principal }) => {
        const { flow, head } = inspectable(principal, query, params);
        return { ...head, input_schema: flowInputSchema(flow) };
      },
    }),
  ];
}
