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
import { TopRows } from './top-rows.js';
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
  if (scope.kind === 'all' && matches.none && !request.includeStats && request.orderBy === 'created_at') return plainPage(source, account, request, request.limit ?? ceiling);
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
  // Other orderings keep only the first offset + limit + 1 rows after the cursor (the +1 tells has_more).
  const sign = order === 'desc' ? -1 : 1;
  const top = natural ? null : new TopRows<{ row: SearchRow; position: Position }>(request.offset + limit + 1, (a, b) => sign * comparePositions(a.position, b.position) < 0);
  // Creation order is the index order, so the default ordering needs no sort; others keep their first rows.
  source.search.forEachRow(account, natural ? order : 'asc', matches.needsText, (row, text) => {
    if (!inScope(scope, row) || !matches.matches(row, text)) return;
    total += 1;
    stats?.add(row);
    if (top) {
      const position = positionOf(row, orderBy);
      if (!afterCursor || afterCursor(position)) top.offer({ row, position });
      return;
    }
    if (afterCursor && !afterCursor(positionOf(row, orderBy))) return;
    if (skipped < request.offset) {
      skipped += 1;
      return;
    }
    if (page.length < limit) page.push(row);
    else hasMore = true;
  });
  if (!top) return { rows: page, total, hasMore, stats };
  const kept = top.sorted();
  const window = kept.slice(request.offset, request.offset + limit);
  return { rows: window.map((k) => k.row), total, hasMore: kept.length > request.offset + limit, stats };
}

/**
 * A page with no filter and no stats in creation order: the total is the account's key count and
 * the page is read from the cursor's key on, so it costs the page, not the account's size.
 */
function plainPage(source: SearchSource, account: string, request: SearchRequest, limit: number): SearchOutcome {
  const total = source.search.countOf(account);
  const rows = request.cursor
    ? source.search.rowsAfter(account, request.order, request.cursor)
    : source.search.rowsOf(account, request.order);
  const page: SearchRow[] = [];
  let skipped = 0;
  let hasMore = false;
  for (const row of rows) {
    if (skipped < request.offset) {
      skipped += 1;
      continue;
    }
    if (page.length === limit) {
      hasMore = true;
      break;
    }
    page.push(row);
  }
  return { rows: page, total, hasMore, stats: null };
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
