/**
 * The filters of a search (reference gateway-surfaces §2.5, "Filter semantics") as one predicate
 * over search rows, applied in a single pass. Every comparison is on the normalised values the
 * envelope shows, so what a filter matches is what the caller sees.
 */
import type { SearchRequest } from './search-params.js';
import { tagMarker, TEXT_START, type SearchRow, type SearchText } from './search-row.js';

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

export interface RowFilter {
  /** Whether the filters read the tags or the text (`tags`, `query`). */
  needsText: boolean;
  /** Whether there is no filter at all (every row matches). */
  none: boolean;
  matches(row: SearchRow, text: SearchText | null): boolean;
}

/** The predicate of a request's filters (the scope and the cursor are applied apart). */
export function rowFilter(request: SearchRequest): RowFilter {
  const checks: Array<(row: SearchRow) => boolean> = [];
  const textChecks: Array<(text: SearchText) => boolean> = [];
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
  if (tagPairs.length > 0) {
    const markers = tagPairs.map(([key, value]) => tagMarker(key, value));
    textChecks.push((text) => {
      const end = text.indexOf(TEXT_START);
      return markers.every((marker) => {
        const at = text.indexOf(marker);
        return at !== -1 && at < end;
      });
    });
  }
  if (query) textChecks.push((text) => text.indexOf(query, text.indexOf(TEXT_START) + 1) !== -1);
  return {
    needsText: textChecks.length > 0,
    none: checks.length + textChecks.length === 0,
    matches(row, text) {
      for (const check of checks) if (!check(row)) return false;
      if (textChecks.length === 0) return true;
      if (!text) return false;
      for (const check of textChecks) if (!check(text)) return false;
      return true;
    },
  };
}
