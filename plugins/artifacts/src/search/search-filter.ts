/**
 * The filters of a search (reference gateway-surfaces §2.5, "Filter semantics") as one predicate
 * over search rows, applied in a single pass. Every comparison is on the normalised values the
 * envelope shows, so what a filter matches is what the caller sees.
 */
import type { SearchRequest } from './search-params.js';
import type { SearchRow } from './search-row.js';

/** Where the rows may come from: the account's rows, narrowed to a session or a run's reach. */
export type RowScope =
  | { kind: 'all' }
  | { kind: 'session'; sessionId: string }
  /** A run's reach: what it produced, its session's artifacts and the owner's shared ones. */
  | { kind: 'run'; runId: string | null; sessionId: string | null };

const GENERIC_SEMANTIC = new Set(['', '(none)', 'audio', 'artifact', 'binary', 'other']);
const OTHER_SEMANTIC = new Set(['', '(none)', 'artifact', 'binary', 'other']);
const OTHER_RENDER = new Set(['', 'binary', 'other']);

/** One `artifact_kind` value against a row. */
export function matchesArtifactKind(kind: string, row: Pick<SearchRow, 'semantic_kind' | 'render_kind' | 'modality'>): boolean {
  if (kind === 'audio' || kind === 'unclassified_audio') {
    return GENERIC_SEMANTIC.has(row.semantic_kind) && (row.render_kind === 'audio' || row.modality === 'audio');
  }
  if (kind === 'other') return OTHER_SEMANTIC.has(row.semantic_kind) || OTHER_RENDER.has(row.render_kind);
  return row.semantic_kind === kind || row.render_kind === kind || row.modality === kind;
}

export function inScope(scope: RowScope, row: SearchRow): boolean {
  switch (scope.kind) {
    case 'all':
      return true;
    case 'session':
      return row.session === scope.sessionId || row.shared;
    case 'run':
      return (scope.runId !== null && row.producer_run === scope.runId) || (scope.sessionId !== null && row.session === scope.sessionId) || row.shared;
  }
}

/** The predicate of a request's filters (the scope and the cursor are applied apart). */
export function rowFilter(request: SearchRequest): (row: SearchRow) => boolean {
  const checks: Array<(row: SearchRow) => boolean> = [];
  const { artifactKinds, semanticKinds, renderKinds, modalities, contentTypes, workflowId, nodeId, createdAfter, createdBefore, tags, query } = request;
  if (createdAfter) checks.push((row) => row.created_at >= createdAfter);
  if (createdBefore) checks.push((row) => row.created_at <= createdBefore);
  if (artifactKinds) checks.push((row) => artifactKinds.some((kind) => matchesArtifactKind(kind, row)));
  if (semanticKinds) checks.push((row) => semanticKinds.has(row.semantic_kind));
  if (renderKinds) checks.push((row) => renderKinds.has(row.render_kind));
  if (modalities) checks.push((row) => modalities.has(row.modality));
  if (contentTypes) checks.push((row) => contentTypes.exact.has(row.content_type) || contentTypes.prefixes.some((p) => row.content_type.startsWith(p)));
  if (workflowId) checks.push((row) => row.workflow_id === workflowId);
  if (nodeId) checks.push((row) => row.node_id === nodeId);
  const tagPairs = Object.entries(tags);
  if (tagPairs.length > 0) checks.push((row) => tagPairs.every(([key, value]) => row.tags[key] === value));
  if (query) checks.push((row) => row.hay.includes(query));
  return (row) => {
    for (const check of checks) if (!check(row)) return false;
    return true;
  };
}
