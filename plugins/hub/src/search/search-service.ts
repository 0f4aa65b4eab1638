/**
 * `GET /search` (seed §2.10 and §8, reference §6 SearchReport): runs the sources that fit the
 * `kind` filter over the viewer's channels, ranks, and groups hits into the six sections.
 *
 * - Every term must match; when that finds nothing and the query has several terms, the search
 *   relaxes to any term and says so (`relaxed: true`).
 * - Relevance (and votes) mode serves the top `limit` hits of each section and never pages.
 * - `sort=recent` with exactly one kind pages over that kind's hits by an opaque keyset cursor;
 *   section totals still count every match.
 */
import type { SearchReport, SearchSection } from '@keel/hub-client';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord } from '../records.js';
import { compareRecent, decodeCursor, encodeCursor } from './search-cursor.js';
import { SECTION_NAMES, type Candidate, type MatchMode, type SearchScope, type SearchSource, type SectionName } from './search-hit.js';
import type { SearchRequest } from './search-request.js';

export class SearchService {
  constructor(private readonly hub: Hub, private readonly sources: SearchSource[]) {}

  search(viewer: AgentRecord, request: SearchRequest): SearchReport {
    const member = this.hub.db.channelsOf(viewer.id);
    const channels = new Set(request.channels ? member.filter((c) => request.channels!.includes(c)) : member);
    const scope: SearchScope = { viewer, request, channels };
    const sources = this.sources.filter((s) => request.kind === null || s.kinds.includes(request.kind));
    const run = (mode: MatchMode) => sources.flatMap((s) => s.find(scope, mode));
    let found = run('all');
    let relaxed = false;
    if (!found.length && request.terms.length > 1) {
      found = run('any');
      relaxed = true;
    }
    found.sort(comparator(request));

    const sections = Object.fromEntries(SECTION_NAMES.map((name) => [name, { hits: [], shown: 0, total: 0 } as SearchSection])) as Record<SectionName, SearchSection>;
    for (const c of found) sections[c.section].total++;
    let nextCursor: string | null = null;
    if (request.sort === 'recent' && request.kind !== null) {
      const after = decodeCursor(request.cursor);
      const rest = after ? found.filter((c) => compareRecent(after, { at: c.at, ref: c.ref }) < 0) : found;
      const page = rest.slice(0, request.limit);
      for (const c of page) sections[c.section].hits.push(c.hit());
      const last = page[page.length - 1];
      if (last && rest.length > page.length) nextCursor = encodeCursor({ at: last.at, ref: last.ref });
    } else {
      for (const c of found) if (sections[c.section].hits.length < request.limit) sections[c.section].hits.push(c.hit());
    }
    for (const s of Object.values(sections)) s.shown = s.hits.length;
    return {
      ...sections, relaxed, channels_searched: channels.size, next_cursor: nextCursor, computed_at: nowSeconds(),
      mode_used: 'lexical', semantic_coverage: null,
      notice: request.mode === 'lexical' ? null : `mode '${request.mode}' is not served by this hub — these are lexical results`,
    };
  }
}

function comparator(request: SearchRequest): (a: Candidate, b: Candidate) => number {
  const recent = (a: Candidate, b: Candidate) => compareRecent({ at: a.at, ref: a.ref }, { at: b.at, ref: b.ref });
  if (request.sort === 'recent') return recent;
  if (request.sort === 'votes') return (a, b) => b.votes - a.votes || b.score - a.score || recent(a, b);
  return (a, b) => b.score - a.score || recent(a, b);
}
