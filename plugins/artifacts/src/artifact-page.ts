/** The page shape of the artifact lists (reference §2.5): `{items, total, offset, limit, has_more, ...}`. */
import type { ArtifactRecord } from './artifact-record.js';
import { metadataOf, referenceOf } from './artifact-reference.js';

export interface PageRequest {
  limit?: number;
  offset?: number;
}

/** A row of a list: the record's metadata and its reference. */
export function rowOf(record: ArtifactRecord): Record<string, unknown> {
  return { ...metadataOf(record), ref: referenceOf(record) };
}

/** One page of `records` (newest first), bounded by the settings. */
export function pageOf(records: Iterable<ArtifactRecord>, request: PageRequest, limits: { defaultLimit: number; maxLimit: number }) {
  const all = [...records].sort((a, b) => (a.created_at === b.created_at ? (a.artifact_id < b.artifact_id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
  const limit = Math.min(request.limit && request.limit > 0 ? request.limit : limits.defaultLimit, limits.maxLimit);
  const offset = Math.max(request.offset ?? 0, 0);
  const items = all.slice(offset, offset + limit).map(rowOf);
  return { items, total: all.length, offset, limit, has_more: offset + items.length < all.length, cursor: null, next_cursor: null, facets: {}, stats: {}, warnings: [] as string[] };
}
