/**
 * Workflow catalog records (reference gateway-surfaces §6.1): what an admin published, who may run
 * it, and the shape clients see. Pure values and rules; the store persists them.
 */
import { badRequest, HttpError, type Principal } from '@keel/plugin-sdk';
import type { Entrypoint } from '../bundles/read-bundle.js';

export type CatalogScope = 'tenant_catalog';
export type CatalogStatus = 'published' | 'deprecated' | 'blocked' | 'tombstoned';

export interface CatalogAcl {
  roles: string[];
  users: string[];
  deny_users: string[];
}

export interface CatalogRecord {
  scope: CatalogScope;
  tenant_id: string;
  bundle_id: string;
  bundle_version: string;
  sha256: string;
  size_bytes: number;
  status: CatalogStatus;
  visibility: 'tenant';
  acl: CatalogAcl;
  run_policy: { run_as: 'caller' };
  entrypoints: Entrypoint[];
  default_entrypoint: string | null;
  created_at: string;
  updated_at: string;
  published_at: string;
  publisher: string;
  /** Where the immutable bytes live, relative to the catalog's bundle folder. */
  path: string;
  /** `upload`, `promote` (copied from an installed bundle) or `shipped` (a bundle Keel publishes at boot). */
  origin: 'upload' | 'promote' | 'shipped';
  status_reason: string | null;
  status_updated_at: string | null;
  status_updated_by: string | null;
  acl_updated_at: string | null;
  acl_updated_by: string | null;
}

/** The default pointer of one bundle in one catalog. */
export interface CatalogPointer {
  default_version: string | null;
  default_updated_at: string;
  default_updated_by: string;
}

/** What a catalog run remembers of the record it started from (the run's `workflow_policy`). */
export interface WorkflowPolicy {
  version: 1;
  registry_scope: CatalogScope;
  tenant_id: string;
  bundle_id: string;
  bundle_version: string;
  bundle_ref: string;
  flow_id: string;
  sha256: string;
  status: CatalogStatus;
  run_as: 'caller';
}

export const FRAMEWORK_RESERVED = 'framework_catalog is reserved but not loadable yet; use tenant_catalog';
const DEFAULT_ROLES = ['user', 'admin'];
/** Every signed-in account holds the role `user`; kernel roles (`admin`, ...) come on top. */
const IMPLICIT_ROLE = 'user';
const TENANT = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** `scope` of a catalog route or field: the tenant catalog (with its aliases); `framework_catalog` answers 501. */
export function parseCatalogScope(raw: string | undefined, field: string): CatalogScope {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'tenant_catalog' || value === 'catalog' || value === 'tenant') return 'tenant_catalog';
  if (value === 'framework_catalog' || value === 'framework' || value === 'global') {
    throw new HttpError(501, FRAMEWORK_RESERVED, { code: 'framework_catalog_reserved', field });
  }
  throw badRequest(`scope '${raw}' is unknown; use tenant_catalog.`, { code: 'invalid_request', field });
}

/** The tenant a request targets: the caller's own unless an admin names another (403 for anyone else). */
export function targetTenant(requested: string | undefined, principal: Principal, isAdmin: boolean, field: string): string {
  const tenant = requested?.trim() || principal.tenant;
  if (!TENANT.test(tenant)) throw badRequest(`tenant_id '${tenant}' is not a tenant id (lowercase letters, digits, '.', '_', '-').`, { code: 'invalid_request', field });
  if (tenant !== principal.tenant && !isAdmin) throw new HttpError(403, `Only an admin may read the catalog of another tenant ('${tenant}').`, { code: 'forbidden' });
  return tenant;
}

/** ACL lists arrive as comma strings or lists; de-duplicated; no roles and no users means roles user and admin. */
export function normalizeAcl(input: { roles?: unknown; users?: unknown; deny_users?: unknown }): CatalogAcl {
  const roles = names(input.roles, 'roles');
  const users = names(input.users, 'users');
  const deny = names(input.deny_users, 'deny_users');
  return { roles: roles.length === 0 && users.length === 0 ? [...DEFAULT_ROLES] : roles, users, deny_users: deny };
}

function names(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : null;
  if (!list || list.some((v) => typeof v !== 'string')) throw badRequest(`${field} must be a comma-separated string or a list of strings.`, { code: 'invalid_request', field: `body.${field}` });
  return [...new Set((list as string[]).map((v) => v.trim()).filter(Boolean))];
}

/** The run rule: admins; else same tenant, not denied (as `user` or `tenant:user`), listed in `users` when it has any, else holding a role. */
export function aclAllows(record: Pick<CatalogRecord, 'tenant_id' | 'acl'>, principal: Principal, isAdmin: boolean): boolean {
  if (isAdmin) return true;
  if (record.tenant_id !== principal.tenant) return false;
  const ids = [principal.account, `${principal.tenant}:${principal.account}`];
  if (record.acl.deny_users.some((u) => ids.includes(u))) return false;
  if (record.acl.users.length > 0) return record.acl.users.some((u) => ids.includes(u));
  const held = new Set([IMPLICIT_ROLE, ...principal.roles]);
  return record.acl.roles.some((r) => held.has(r));
}

export interface CatalogActions {
  can_run: boolean;
  can_inspect: boolean;
  can_admin: boolean;
}

export function actionsFor(record: CatalogRecord, principal: Principal, isAdmin: boolean): CatalogActions {
  const canRun = record.status === 'published' && aclAllows(record, principal, isAdmin);
  return { can_run: canRun, can_inspect: canRun || isAdmin, can_admin: isAdmin };
}

export function bundleRef(record: Pick<CatalogRecord, 'bundle_id' | 'bundle_version'>): string {
  return `${record.bundle_id}@${record.bundle_version}`;
}

/** The record as clients see it: plus `bundle_ref`, `is_default`, `default_version` and the caller's `actions`. */
export function publicRecord(record: CatalogRecord, pointer: CatalogPointer | undefined, principal: Principal, isAdmin: boolean) {
  const defaultVersion = pointer?.default_version ?? null;
  return {
    ...record,
    bundle_ref: bundleRef(record),
    is_default: defaultVersion === record.bundle_version,
    default_version: defaultVersion,
    actions: actionsFor(record, principal, isAdmin),
  };
}

export function policyOf(record: CatalogRecord, flowId: string): WorkflowPolicy {
  return {
    version: 1,
    registry_scope: record.scope,
    tenant_id: record.tenant_id,
    bundle_id: record.bundle_id,
    bundle_version: record.bundle_version,
    bundle_ref: bundleRef(record),
    flow_id: flowId,
    sha256: record.sha256,
    status: record.status,
    run_as: 'caller',
  };
}
