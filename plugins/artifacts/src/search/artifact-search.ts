/**
 * One search: a single pass over the caller's search rows in creation order that applies the scope
 * and the filters, counts the exact statistics (independent of the page), and keeps only the page
 * (after the cursor, past the offset, up to the limit). Other orderings sort the matching rows.
 * Full records are read for the page rows only.
 */
import type { ArtifactRecord } from '../artifact-record.js';
import { searchRowOf } from './artifact-envelope.js';
import { FacetCounter } from './search-facets.js';
import { inScope, rowFilter, type RowScope } from './search-filter.js';
import type { SearchIndex } from './search-index.js';
import { comparePositions, encodeCursor, positionOf, type Position } from './search-order.js';
import { filtersOf, type SearchRequest } from './search-params.js';
import type { SearchRow } from './search-row.js';

export interface SearchSource {
  search: SearchIndex;
  get(account: string, artifactId: string): ArtifactRecord | undefined;
}

export interface SearchOutcome {
  rows: SearchRow[];
  total: number;
  hasMore: boolean;
  stats: FacetCounter | null;
}

/** Runs the pass; `ceiling` bounds an unlimited page. */
export function runSearch(source: SearchSource, account: string, scope: RowScope, request: SearchRequest, ceiling: number): SearchOutcome {
  const matches = rowFilter(request);
  const stats = request.includeStats ? new FacetCounter() : null;
  const limit = request.limit ?? ceiling;
  const { cursor, orderBy, order } = request;
  const natural = orderBy === 'created_at';
  // Whether `row` comes after the cursor in the requested direction.
  const afterCursor = cursor
    ? (position: Position) => (order === 'desc' ? comparePositions(position, cursor) < 0 : comparePositions(position, cursor) > 0)
    : null;

  let total = 0;
  let skipped = 0;
  let hasMore = false;
  const page: SearchRow[] = [];
  const sortable: SearchRow[] = [];
  // Creation order is the index order, so the default ordering needs no sort; others collect and sort.
  for (const { row, text } of source.search.rowsOf(account, natural ? order : 'asc', matches.needsText)) {
    if (!inScope(scope, row) || !matches.matches(row, text)) continue;
    total += 1;
    stats?.add(row);
    if (!natural) {
      sortable.push(row);
      continue;
    }
    if (afterCursor && !afterCursor(positionOf(row, orderBy))) continue;
    if (skipped < request.offset) {
      skipped += 1;
      continue;
    }
    if (page.length < limit) page.push(row);
    else hasMore = true;
  }
  if (natural) return { rows: page, total, hasMore, stats };

  const sign = order === 'desc' ? -1 : 1;
  const keyed = sortable.map((row) => ({ row, position: positionOf(row, orderBy) }));
  keyed.sort((a, b) => sign * comparePositions(a.position, b.position));
  const remaining = afterCursor ? keyed.filter((k) => afterCursor(k.position)) : keyed;
  const window = remaining.slice(request.offset, request.offset + limit);
  return { rows: window.map((k) => k.row), total, hasMore: request.offset + limit < remaining.length, stats };
}

/** The page answer (reference §2.5 page shape, with the search echo fields). */
export function searchAnswer(source: SearchSource, account: string, request: SearchRequest, outcome: SearchOutcome, warnings: string[]) {
  const items: Record<string, unknown>[] = [];
  for (const row of outcome.rows) {
    const record = source.get(account, row.id);
    // A row without its record cannot happen inside one transaction; skip it rather than invent one.
    if (record) items.push(searchRowOf(record));
  }
  const last = outcome.rows[outcome.rows.length - 1];
  const nextCursor = outcome.hasMore && last ? encodeCursor({ ...positionOf(last, request.orderBy), order_by: request.orderBy, order: request.order }) : null;
  const stats = outcome.stats ? statsOf(request, outcome.stats, warnings) : {};
  return {
    items,
    total: outcome.total,
    offset: request.offset,
    limit: request.limit,
    has_more: outcome.hasMore,
    cursor: request.cursorText,
    next_cursor: nextCursor,
    facets: outcome.stats ? outcome.stats.facets() : {},
    stats,
    warnings,
    scope: request.scope,
    session_id: request.sessionId,
    run_id: request.runId,
    query: request.query,
    modality: request.modalities ? [...request.modalities].join(',') : null,
    artifact_kind: request.artifactKinds ? request.artifactKinds.join(',') : null,
    semantic_kind: request.semanticKinds ? [...request.semanticKinds].join(',') : null,
    render_kind: request.renderKinds ? [...request.renderKinds].join(',') : null,
    content_type: request.contentTypes ? [...request.contentTypes.exact, ...request.contentTypes.prefixes.map((p) => `${p}*`)].join(',') : null,
    order_by: request.orderBy,
    order: request.order,
    tags: request.tags,
  };
}

export function statsOf(request: SearchRequest, counter: FacetCounter, warnings: string[]) {
  return {
    total: counter.total,
    total_bytes: counter.totalBytes,
    byte_total: counter.totalBytes,
    facets: counter.facets(),
    filters: filtersOf(request),
    warnings,
    exact: true,
    source: 'artifact_index',
  };
}
