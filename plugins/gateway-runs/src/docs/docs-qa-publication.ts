/**
 * Publishes Keel's shipped docs-question bundle (`docs-qa`, reference formats §8.2) into the tenant
 * workflow catalog at boot, so `registry_scope: tenant_catalog, bundle_id: docs-qa, flow_id:
 * docsqa001` starts it. Publish-if-absent: a version already in the catalog (whatever its status or
 * bytes: tombstoned, blocked, an admin's own upload) is left exactly as it is, so a tombstone is
 * never resurrected. The default pointer is set only when the bundle never had one, and moved to a
 * newer shipped version only while Keel itself set it: a pointer an admin moved or cleared stays.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@keel/plugin-sdk';
import { compareVersions } from '../bundles/bundle-registry.js';
import { readBundle } from '../bundles/read-bundle.js';
import type { BundleLimits } from '../bundles/bounded-unzip.js';
import type { CatalogStore } from '../catalog/catalog-store.js';

export const DOCS_QA_BUNDLE_ID = 'docs-qa';
export const DOCS_QA_FLOW_ID = 'docsqa001';
/** The `publisher` and pointer author of what Keel publishes itself (never an account name: those have no ':'). */
export const SHIPPED_PUBLISHER = 'keel:shipped';

export interface PublicationOutcome {
  tenant: string;
  published: string[];
  kept: string[];
  default_version: string | null;
}

/** The shipped docs-qa versions, oldest first: `[version, bytes]`. */
export function shippedDocsQaVersions(shippedDir: string, limits: BundleLimits): Array<[string, Uint8Array]> {
  const out: Array<[string, Uint8Array]> = [];
  for (const name of readdirSync(shippedDir).filter((n) => n.startsWith(`${DOCS_QA_BUNDLE_ID}@`) && n.endsWith('.flow'))) {
    const bytes = readFileSync(path.join(shippedDir, name));
    const manifest = readBundle(bytes, limits).manifest;
    if (manifest.bundle_id === DOCS_QA_BUNDLE_ID) out.push([manifest.bundle_version, bytes]);
  }
  return out.sort(([a], [b]) => compareVersions(a, b));
}

/** Publishes every shipped version absent from each tenant's catalog; an unreadable bundle or one tenant's failure is logged and never blocks the others or the boot. */
export async function publishDocsQa(d: { catalog: CatalogStore; shippedDir: string; limits: BundleLimits; tenants: readonly string[]; log: Logger }): Promise<PublicationOutcome[]> {
  let versions: Array<[string, Uint8Array]>;
  try {
    versions = shippedDocsQaVersions(d.shippedDir, d.limits);
  } catch (err) {
    d.log.warn('the shipped docs-qa bundle cannot be read; it is not published into the tenant catalog', { dir: d.shippedDir, error: (err as Error).message });
    return [];
  }
  const outcomes: PublicationOutcome[] = [];
  for (const tenant of d.tenants) {
    try {
      outcomes.push(await publishInto(d.catalog, tenant, versions));
    } catch (err) {
      d.log.warn('docs-qa was not published into the tenant catalog; docs questions through the catalog fail until an admin publishes it', { tenant, error: (err as Error).message });
    }
  }
  return outcomes;
}

async function publishInto(catalog: CatalogStore, tenant: string, versions: Array<[string, Uint8Array]>): Promise<PublicationOutcome> {
  const scope = 'tenant_catalog' as const;
  const outcome: PublicationOutcome = { tenant, published: [], kept: [], default_version: null };
  for (const [version, bytes] of versions) {
    if (catalog.get(scope, tenant, DOCS_QA_BUNDLE_ID, version)) {
      outcome.kept.push(version);
      continue;
    }
    await catalog.publish({ scope, tenant, bytes, publisher: SHIPPED_PUBLISHER, acl: null, makeDefault: false, leavePointer: true, origin: 'shipped' });
    outcome.published.push(version);
  }
  // The newest shipped version the catalog can start (an admin may have blocked or replaced one).
  const newest = versions.map(([v]) => v).reverse().find((v) => catalog.get(scope, tenant, DOCS_QA_BUNDLE_ID, v)?.status === 'published');
  const pointer = catalog.pointer(scope, tenant, DOCS_QA_BUNDLE_ID);
  const ours = pointer !== undefined && pointer.default_updated_by === SHIPPED_PUBLISHER && pointer.default_version !== null;
  if (newest !== undefined && (pointer === undefined || (ours && compareVersions(newest, pointer.default_version!) > 0))) {
    await catalog.setDefault(scope, tenant, DOCS_QA_BUNDLE_ID, newest, SHIPPED_PUBLISHER);
  }
  outcome.default_version = catalog.pointer(scope, tenant, DOCS_QA_BUNDLE_ID)?.default_version ?? null;
  return outcome;
}
