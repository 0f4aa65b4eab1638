/**
 * The artifact record (issue 12, Contract 3): what the artifacts plugin stores per artifact in its
 * LMDB index, and the read interface search and `/files/list` build on. The bytes live apart, in the
 * content-addressed blob store, under `sha256`.
 */

/** One artifact of one account: an upload, an import from a workspace, or a file a run produced. */
export interface ArtifactRecord {
  /** Random, url-safe. */
  artifact_id: string;
  /** Owner plane: the principal's account (`tenant:name` form as auth gives it). */
  account: string;
  /** Producing run (null for uploads before a run). */
  run_id: string | null;
  session_id: string | null;
  /** Blob key (content-addressed): hex sha256 of the bytes. */
  sha256: string;
  size_bytes: number;
  content_type: string;
  filename: string;
  /** Canonical server path (`rel/path` or `<mount_alias>/rel/path`), digest-suffixed alias on clashes. */
  path: string | null;
  /** Folder-upload member path, normalised (relative, `/`-separated). */
  source_path: string | null;
  origin: 'upload' | 'run_output' | 'import';
  /** Includes `shared: user` when the artifact is shared across its owner's sessions. */
  tags: Record<string, string>;
  semantic_kind: string | null;
  render_kind: string | null;
  modality: string | null;
  workflow_id: string | null;
  node_id: string | null;
  turn_id: string | null;
  ledger_cursor: number | null;
  producer: Record<string, unknown> | null;
  generation: Record<string, unknown> | null;
  /** ISO 8601. */
  created_at: string;
}

/** Read access to the records (the artifacts service implements it). */
export interface ArtifactStore {
  get(account: string, artifactId: string): ArtifactRecord | undefined;
  /** Rows of one account (scope filters applied by the caller), in created order, lazily. */
  scan(account: string, opts?: { runId?: string; sessionId?: string }): Iterable<ArtifactRecord>;
}

/** The tag that makes an artifact visible to every session of its owner (seed §2.6). */
export const SHARED_TAG = 'shared';
export const SHARED_USER = 'user';

/** Whether a record carries `shared: user` (the value compared case-insensitively, as the origin does). */
export function isSharedWithUser(record: Pick<ArtifactRecord, 'tags'>): boolean {
  return (record.tags[SHARED_TAG] ?? '').toLowerCase() === SHARED_USER;
}
