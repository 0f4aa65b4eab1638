/**
 * What the search index keeps per artifact: a row of scalars search filters, orders and counts on,
 * already normalised (the envelope's classification), and apart from it the tags and the lower-cased
 * text `query` looks through (read only by searches that filter on them). Both are written with the
 * record, so one pass over these small rows answers a search without reading records.
 */
import { isSharedWithUser, type ArtifactRecord } from '../artifact-record.js';
import { normalisedFields } from './artifact-envelope.js';

export interface SearchRow {
  id: string;
  /** The run id the artifact is reached under (its producer, else its session's memory run). */
  run: string | null;
  /** The producing run (null for uploads and imports). */
  producer_run: string | null;
  session: string | null;
  shared: boolean;
  content_type: string;
  size: number;
  created_at: string;
  semantic_kind: string;
  render_kind: string;
  modality: string;
  workflow_id: string | null;
  node_id: string | null;
  turn_id: string | null;
}

/**
 * The part of the index only `tags` and `query` filters read, as one string (stored as plain UTF-8,
 * the cheapest value to read back): the tags as `\u0001key\u0002value` pairs closed by `\u0001`, then
 * `\u0000`, then the lower-cased text `query` matches. Tags, names and queries never hold control
 * characters (they are refused where they come in), so the separators cannot be forged.
 */
export type SearchText = string;
export const TAG = '\u0001';
export const TAG_VALUE = '\u0002';
export const TEXT_START = '\u0000';

/** The marker a tag pair `key=value` has inside a `SearchText`. */
export function tagMarker(key: string, value: string): string {
  return `${TAG}${key}${TAG_VALUE}${value}${TAG}`;
}

/** Scalar keys and values of an object, one level down into nested objects and arrays. */
function scalarsOf(value: unknown, out: string[], depth = 0): void {
  if (value === null || value === undefined || depth > 3) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) scalarsOf(item, out, depth + 1);
    return;
  }
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      out.push(key);
      scalarsOf(item, out, depth + 1);
    }
  }
}

export function searchRowOfRecord(record: ArtifactRecord): { row: SearchRow; text: SearchText } {
  const fields = normalisedFields(record);
  const text: string[] = [
    record.artifact_id, fields.run_id ?? '', record.run_id ?? '', record.content_type, record.filename, record.source_path ?? '', record.path ?? '', record.sha256,
    fields.modality, fields.semantic_kind, fields.render_kind, fields.task ?? '', fields.workflow_id ?? '', fields.node_id ?? '', fields.turn_id ?? '',
    fields.ledger_cursor === null ? '' : String(fields.ledger_cursor), fields.title,
  ];
  scalarsOf(record.generation, text);
  scalarsOf(record.producer, text);
  for (const [key, value] of Object.entries(record.tags)) text.push(key, value);
  const row: SearchRow = {
    id: record.artifact_id,
    run: fields.run_id,
    producer_run: record.run_id,
    session: record.session_id,
    shared: isSharedWithUser(record),
    content_type: record.content_type.toLowerCase(),
    size: record.size_bytes,
    created_at: record.created_at,
    semantic_kind: fields.semantic_kind,
    render_kind: fields.render_kind,
    modality: fields.modality,
    workflow_id: fields.workflow_id,
    node_id: fields.node_id,
    turn_id: fields.turn_id,
  };
  const tagBlock = Object.entries(record.tags).map(([key, value]) => `${TAG}${key}${TAG_VALUE}${value}`).join('') + TAG;
  return { row, text: `${tagBlock}${TEXT_START}${text.filter((t) => t !== '').join('\n').toLowerCase()}` };
}
