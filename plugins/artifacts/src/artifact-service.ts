/**
 * Making artifacts: a blob that was written (upload, import, a file a run produced) gets its digest
 * name, a record with its tags and a canonical path unique in its session, and its index rows.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '@keel/plugin-sdk';
import { nameScopeOf, type ArtifactIndex, type NameField } from './artifact-index.js';
import type { ArtifactRecord } from './artifact-record.js';
import type { BlobStore, PendingBlob } from './blob-store.js';
import { modalityOf, withSuffix } from './upload-names.js';

/** Tags the plugin writes itself; a caller's tags may not replace them (reference §2.1). */
export const RESERVED_TAGS = new Set(['kind', 'target', 'source', 'path', 'filename', 'session_id', 'sha256', 'alias']);

export interface NewArtifact {
  account: string;
  session_id: string | null;
  run_id: string | null;
  origin: ArtifactRecord['origin'];
  filename: string;
  content_type: string;
  /** The path the artifact asks for (`client:<member path>` for uploads, the workspace path otherwise). */
  path: string;
  source_path: string | null;
  tags: Record<string, string>;
  workflow_id?: string | null;
  node_id?: string | null;
  ledger_cursor?: number | null;
  producer?: Record<string, unknown> | null;
}

const KIND_OF_ORIGIN: Record<ArtifactRecord['origin'], string> = { upload: 'attachment', import: 'run_input', run_output: 'run_output' };
const SOURCE_OF_ORIGIN: Record<ArtifactRecord['origin'], string> = { upload: 'upload', import: 'workspace', run_output: 'run' };

export class ArtifactService {
  /** Creation times strictly increase, so "created order" is the order artifacts were made in. */
  private lastCreatedMs = 0;

  constructor(readonly index: ArtifactIndex, readonly blobs: BlobStore, private readonly clock: Clock) {}

  /**
   * Gives the blob its digest name, then records it (both durable when this resolves). The names
   * are chosen inside the write transaction: two artifacts made at once (here or in a `keel runner`
   * beside this process) never take one name.
   */
  async add(blob: PendingBlob, input: NewArtifact): Promise<ArtifactRecord> {
    await blob.commit();
    const createdAt = this.nextCreatedAt();
    return this.index.add(() => this.recordOf(blob, input, createdAt));
  }

  private recordOf(blob: PendingBlob, input: NewArtifact, createdAt: string): ArtifactRecord {
    // Looked up by name (never by reading the whole session: that made each upload cost as much as the session held).
    const scope = nameScopeOf(input);
    const holders = (field: NameField) => (name: string) => (scope ? this.index.nameHolders(input.account, scope, field, name) : new Set<string>());
    const alias = uniqueName(holders('alias'), input.filename, blob.sha256);
    const path = uniqueName(holders('path'), input.path, blob.sha256);
    const modality = modalityOf(input.content_type);
    const tags: Record<string, string> = {
      ...Object.fromEntries(Object.entries(input.tags).filter(([key]) => !RESERVED_TAGS.has(key))),
      kind: KIND_OF_ORIGIN[input.origin],
      target: input.origin === 'upload' ? 'client' : 'server',
      source: SOURCE_OF_ORIGIN[input.origin],
      path,
      filename: input.filename,
      sha256: blob.sha256,
      alias,
    };
    if (input.session_id) tags.session_id = input.session_id;
    tags.modality ??= modality;
    const record: ArtifactRecord = {
      artifact_id: newArtifactId(),
      account: input.account,
      run_id: input.run_id,
      session_id: input.session_id,
      sha256: blob.sha256,
      size_bytes: blob.size,
      content_type: input.content_type,
      filename: input.filename,
      path,
      source_path: input.source_path,
      origin: input.origin,
      tags,
      semantic_kind: null,
      render_kind: null,
      modality,
      workflow_id: input.workflow_id ?? null,
      node_id: input.node_id ?? null,
      turn_id: null,
      ledger_cursor: input.ledger_cursor ?? null,
      producer: input.producer ?? null,
      generation: null,
      created_at: createdAt,
    };
    return record;
  }

  private nextCreatedAt(): string {
    this.lastCreatedMs = Math.max(this.clock.nowMs(), this.lastCreatedMs + 1);
    return new Date(this.lastCreatedMs).toISOString();
  }

}

/**
 * `wanted` when no peer holds it with other bytes; else the shortest digest-suffixed alias
 * (`name-<first 8, 12, ... hex of sha256>.ext`) that is free or already names these bytes, so the
 * same bytes always get the same name and different bytes never share one. `holdersOf(name)`: the
 * digests of the peers (the session's artifacts, else the run's) holding that name.
 */
export function uniqueName(holdersOf: (name: string) => Set<string>, wanted: string, sha256: string): string {
  const free = (name: string) => {
    const shas = holdersOf(name);
    return shas.size === 0 || (shas.size === 1 && shas.has(sha256));
  };
  if (free(wanted)) return wanted;
  for (let length = 8; length <= 64; length += 4) {
    const alias = withSuffix(wanted, sha256.slice(0, length));
    if (free(alias)) return alias;
  }
  return withSuffix(wanted, sha256);
}

/** 128 random bits, url-safe. */
export function newArtifactId(): string {
  return randomBytes(16).toString('base64url');
}
