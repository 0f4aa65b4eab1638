/**
 * Which catalog version a start runs (seed 000 §2.1, reference §6.1): the named version, else the
 * bundle's default pointer; then the ACL (403) and the status (only `published` starts, 409).
 * Refusals come back as values so a direct start (HTTP error) and the `@default` resolver (a reason
 * inside its 409) word them the same way.
 */
import type { Principal } from '@keel/plugin-sdk';
import { BundleError, type Bundle } from '../bundles/read-bundle.js';
import { aclAllows, bundleRef, type CatalogRecord } from './catalog-record.js';
import type { CatalogStore } from './catalog-store.js';

const WHERE = "this gateway's tenant catalog";

export type CatalogPick =
  | { ok: true; record: CatalogRecord; bundle: Bundle }
  | { ok: false; status: 403 | 404 | 409; code: string; reason: string };

export function pickCatalogVersion(catalog: CatalogStore, principal: Principal, isAdmin: boolean, bundleId: string, version: string | undefined): CatalogPick {
  const versions = catalog.list('tenant_catalog', principal.tenant, bundleId);
  if (versions.length === 0) return { ok: false, status: 404, code: 'bundle_not_found', reason: `workflow bundle '${bundleId}' is not on ${WHERE}` };
  let record: CatalogRecord | undefined;
  if (version !== undefined) {
    record = versions.find((r) => r.bundle_version === version);
    if (!record) return { ok: false, status: 404, code: 'bundle_not_found', reason: `'${bundleId}' has no version ${version} on ${WHERE} (it has ${versions.map((r) => r.bundle_version).join(', ')})` };
  } else {
    const pointed = catalog.pointer('tenant_catalog', principal.tenant, bundleId)?.default_version ?? null;
    record = pointed === null ? undefined : versions.find((r) => r.bundle_version === pointed);
    if (!record) return { ok: false, status: 404, code: 'no_default_version', reason: `'${bundleId}' has no published default version on ${WHERE} (give bundle_version, or an admin sets the default)` };
  }
  if (!aclAllows(record, principal, isAdmin)) {
    return { ok: false, status: 403, code: 'forbidden', reason: `account '${principal.account}' may not run ${bundleRef(record)} from ${WHERE} (its ACL does not allow it)` };
  }
  if (record.status !== 'published') {
    const why = record.status_reason ? `: ${record.status_reason}` : '';
    return { ok: false, status: 409, code: 'workflow_deprecated', reason: `${bundleRef(record)} is ${record.status} on ${WHERE}${why}; only published versions start` };
  }
  try {
    return { ok: true, record, bundle: catalog.bundleOf(record) };
  } catch (err) {
    if (!(err instanceof BundleError)) throw err;
    return { ok: false, status: 409, code: 'catalog_bundle_unreadable', reason: unreadable(record, err) };
  }
}

/** A stored version whose bytes no longer pass the bundle limits (they were lowered since it was published). */
export function unreadable(record: CatalogRecord, err: BundleError): string {
  return `${bundleRef(record)} cannot be read within this gateway's bundle limits (${err.message}); an admin can raise bundleLimits or publish a new version`;
}
