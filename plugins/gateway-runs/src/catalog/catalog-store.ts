/**
 * The shared workflow catalog (reference gateway-surfaces §6.1): records in LMDB keyed
 * `[scope, tenant, bundle_id, version]`, one default pointer per bundle, immutable bytes on disk.
 * A version's bytes never change (other bytes answer 409, the same bytes are idempotent); only
 * `published` versions start; a non-published version never holds the default pointer.
 */
import type { Database } from 'lmdb';
import { prefixRange, conflict, notFound, type PluginStorage } from '@keel/plugin-sdk';
import { compareVersions } from '../bundles/bundle-registry.js';
import { readBundle, type Bundle } from '../bundles/read-bundle.js';
import type { UploadReader } from '../bundles/upload-reader.js';
import { CatalogFiles, sha256Hex } from './catalog-files.js';
import { bundleRef, normalizeAcl, type CatalogAcl, type CatalogPointer, type CatalogRecord, type CatalogScope, type CatalogStatus, type WorkflowPolicy } from './catalog-record.js';

type RecordKey = [string, string, string, string];
type PointerKey = [string, string, string];

export interface PublishInput {
  scope: CatalogScope;
  tenant: string;
  bytes: Uint8Array;
  publisher: string;
  /** The ACL to set; null keeps an existing version's ACL (a new version gets the default ACL). */
  acl: CatalogAcl | null;
  /** undefined: move the pointer when the version is published (or when the bundle has none). */
  makeDefault: boolean | undefined;
  /** true: never touch the default pointer (the boot publication decides it apart, see docs/docs-qa-publication.ts). */
  leavePointer?: boolean;
  origin: CatalogRecord['origin'];
}

type Outcome<T> = { ok: true; value: T } | { ok: false; status: 404 | 409; message: string; code: string };

export class CatalogStore {
  private readonly records: Database<CatalogRecord, RecordKey>;
  private readonly pointers: Database<CatalogPointer, PointerKey>;
  /** Parsed bundles by digest: the bytes of a digest never change. */
  private readonly parsed = new Map<string, Bundle>();

  constructor(private readonly storage: PluginStorage, readonly files: CatalogFiles, private readonly uploads: UploadReader) {
    this.records = storage.openDB<CatalogRecord, RecordKey>('catalog-records');
    this.pointers = storage.openDB<CatalogPointer, PointerKey>('catalog-defaults');
  }

  get(scope: CatalogScope, tenant: string, bundleId: string, version: string): CatalogRecord | undefined {
    return this.records.get([scope, tenant, bundleId, version]);
  }

  pointer(scope: CatalogScope, tenant: string, bundleId: string): CatalogPointer | undefined {
    return this.pointers.get([scope, tenant, bundleId]);
  }

  /** Every version of a catalog (or of one bundle in it), bundles by id, newest version first. */
  list(scope: CatalogScope, tenant: string, bundleId?: string): CatalogRecord[] {
    const start = bundleId === undefined ? [scope, tenant] : [scope, tenant, bundleId];
    const out = [...this.records.getRange(prefixRange(start)).map(({ value }) => value)];
    return out.sort((a, b) => a.bundle_id.localeCompare(b.bundle_id) || compareVersions(b.bundle_version, a.bundle_version));
  }

  /** Stores a version: new bytes become a published record; the same bytes again change nothing but the ACL (when given) and the pointer. */
  async publish(input: PublishInput): Promise<{ record: CatalogRecord; created: boolean }> {
    const bundle = await this.uploads.read(input.bytes);
    const m = bundle.manifest;
    const sha = sha256Hex(input.bytes);
    const before = this.get(input.scope, input.tenant, m.bundle_id, m.bundle_version);
    if (before && before.sha256 !== sha) throw this.differentBytes(before);
    const rel = this.files.relativePath(input.scope, input.tenant, m.bundle_id, m.bundle_version, sha);
    if (!before) await this.files.writeOnce(rel, input.bytes, sha);
    const now = new Date().toISOString();
    const outcome = await this.storage.transaction((): Outcome<{ record: CatalogRecord; created: boolean }> => {
      const key: RecordKey = [input.scope, input.tenant, m.bundle_id, m.bundle_version];
      const existing = this.records.get(key);
      if (existing && existing.sha256 !== sha) return { ok: false, status: 409, code: 'catalog_version_exists', message: this.differentBytes(existing).message };
      let record: CatalogRecord;
      if (existing) {
        record = input.acl ? { ...existing, acl: input.acl, updated_at: now, acl_updated_at: now, acl_updated_by: input.publisher } : existing;
      } else {
        record = {
          scope: input.scope,
          tenant_id: input.tenant,
          bundle_id: m.bundle_id,
          bundle_version: m.bundle_version,
          sha256: sha,
          size_bytes: input.bytes.byteLength,
          status: 'published',
          visibility: 'tenant',
          acl: input.acl ?? normalizeAcl({}),
          run_policy: { run_as: 'caller' },
          entrypoints: m.entrypoints,
          default_entrypoint: m.default_entrypoint,
          created_at: now,
          updated_at: now,
          published_at: now,
          publisher: input.publisher,
          path: rel,
          origin: input.origin,
          status_reason: null,
          status_updated_at: null,
          status_updated_by: null,
          acl_updated_at: null,
          acl_updated_by: null,
        };
      }
      const pointerKey: PointerKey = [input.scope, input.tenant, m.bundle_id];
      const pointer = this.pointers.get(pointerKey);
      const wantDefault = input.makeDefault ?? true;
      if (input.makeDefault === true && record.status !== 'published') {
        return { ok: false, status: 409, code: 'catalog_status', message: `${bundleRef(record)} is ${record.status}; only a published version can become the default.` };
      }
      const move = !input.leavePointer && record.status === 'published' && (wantDefault || !pointer?.default_version);
      if (record !== existing) void this.records.put(key, record);
      if (move && pointer?.default_version !== record.bundle_version) {
        void this.pointers.put(pointerKey, { default_version: record.bundle_version, default_updated_at: now, default_updated_by: input.publisher });
      }
      return { ok: true, value: { record, created: !existing } };
    });
    return settle(outcome);
  }

  /** Moves a bundle's default pointer to a published version. */
  async setDefault(scope: CatalogScope, tenant: string, bundleId: string, version: string, by: string): Promise<CatalogRecord> {
    return settle(await this.storage.transaction((): Outcome<CatalogRecord> => {
      const record = this.records.get([scope, tenant, bundleId, version]);
      if (!record) return missing(bundleId, version);
      if (record.status !== 'published') return { ok: false, status: 409, code: 'catalog_status', message: `${bundleRef(record)} is ${record.status}; only a published version can become the default.` };
      void this.pointers.put([scope, tenant, bundleId], { default_version: version, default_updated_at: new Date().toISOString(), default_updated_by: by });
      return { ok: true, value: record };
    }));
  }

  async setAcl(scope: CatalogScope, tenant: string, bundleId: string, version: string, acl: CatalogAcl, by: string): Promise<CatalogRecord> {
    return this.update(scope, tenant, bundleId, version, (r, now) => ({ ok: true, value: { ...r, acl, updated_at: now, acl_updated_at: now, acl_updated_by: by } }));
  }

  /** Deprecates, blocks or tombstones a version (bytes stay); the default pointer leaves it. A tombstone is final. */
  async setStatus(scope: CatalogScope, tenant: string, bundleId: string, version: string, status: Exclude<CatalogStatus, 'published'>, reason: string | null, by: string): Promise<CatalogRecord> {
    return this.update(scope, tenant, bundleId, version, (r, now) => {
      if (r.status === 'tombstoned' && status !== 'tombstoned') return { ok: false, status: 409, code: 'catalog_status', message: `${bundleRef(r)} is tombstoned; its status cannot change any more.` };
      const pointerKey: PointerKey = [scope, tenant, bundleId];
      const pointer = this.pointers.get(pointerKey);
      if (pointer?.default_version === version) void this.pointers.put(pointerKey, { default_version: null, default_updated_at: now, default_updated_by: by });
      return { ok: true, value: { ...r, status, status_reason: reason, status_updated_at: now, status_updated_by: by, updated_at: now } };
    });
  }

  /** The parsed bundle a record (or a catalog run's policy) names, read from its immutable bytes. */
  bundleOf(ref: Pick<CatalogRecord, 'path' | 'sha256'> | WorkflowPolicy): Bundle {
    const cached = this.parsed.get(ref.sha256);
    if (cached) return cached;
    const rel = 'path' in ref ? ref.path : this.files.relativePath(ref.registry_scope, ref.tenant_id, ref.bundle_id, ref.bundle_version, ref.sha256);
    const bundle = readBundle(this.files.read(rel, ref.sha256), this.uploads.limits);
    this.parsed.set(ref.sha256, bundle);
    return bundle;
  }

  private async update(scope: CatalogScope, tenant: string, bundleId: string, version: string, change: (r: CatalogRecord, now: string) => Outcome<CatalogRecord>): Promise<CatalogRecord> {
    return settle(await this.storage.transaction((): Outcome<CatalogRecord> => {
      const key: RecordKey = [scope, tenant, bundleId, version];
      const record = this.records.get(key);
      if (!record) return missing(bundleId, version);
      const result = change(record, new Date().toISOString());
      if (result.ok) void this.records.put(key, result.value);
      return result;
    }));
  }

  private differentBytes(existing: CatalogRecord) {
    return conflict(`${bundleRef(existing)} already exists in the catalog with different content (sha256 ${existing.sha256}); publish a new bundle_version instead.`, { code: 'catalog_version_exists' });
  }
}

function missing(bundleId: string, version: string): Outcome<never> {
  return { ok: false, status: 404, code: 'catalog_version_not_found', message: `${bundleId}@${version} is not in the catalog.` };
}

/** Turns a transaction's outcome into its value or the HTTP error it stands for (a transaction never throws halfway). */
function settle<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.status === 404 ? notFound(outcome.message, { code: outcome.code }) : conflict(outcome.message, { code: outcome.code });
}
