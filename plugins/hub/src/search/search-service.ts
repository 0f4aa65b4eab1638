/**
 * `GET /search` (seed §2.10 and §8, reference §6 SearchReport): runs the sources that fit the
 * `kind` filter over the viewer's channels, ranks, and groups hits into the six sections.
 *
 * - Every term must match; when that finds nothing and the query has several terms, the search
 *   relaxes to any term and says so (`relaxed: true`).
 * - Relevance (and votes) mode serves the top `limit` hits of each section and never pages.
 * - `sort=recent` with exactly one kind pages over that kind's hits by an opaque keyset cursor;
 *   section totals still count every match.
 * - With a meaning plan (semantic search ran, reference §8.6), each section fuses its keyword
 *   candidates with the documents found by meaning by weighted reciprocal rank,
 *   `1/(60 + keyword rank) + 2/(60 + meaning rank)`; `mode=semantic` keeps the meaning side only.
 *   Without one the report is the keyword search's, unchanged.
 */
import type { SearchReport, SearchSection } from '@keel/hub-client';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord } from '../records.js';
import { compareRecent, decodeCursor, encodeCursor } from './search-cursor.js';
import { SECTION_NAMES, type Candidate, type MatchMode, type SearchScope, type SearchSource, type SectionName } from './search-hit.js';
import type { SearchRequest } from './search-request.js';
import type { MeaningPlan } from './semantic/semantic-search.js';

export class SearchService {
  constructor(private readonly hub: Hub, private readonly sources: SearchSource[]) {}

  search(viewer: AgentRecord, request: SearchRequest, meaning: MeaningPlan | null = null): SearchReport {
    const member = this.hub.db.channelsOf(viewer.id);
    const channels = new Set(request.channels ? member.filter((c) => request.channels!.includes(c)) : member);
    const scope: SearchScope = { viewer, request, channels };
    const sources = this.sources.filter((s) => request.kind === null || s.kinds.includes(request.kind));
    const run = (mode: MatchMode) => sources.flatMap((s) => s.find(scope, mode));
    let found = request.mode === 'semantic' && meaning?.ranked ? [] : run('all');
    let relaxed = false;
    if (!found.length && request.terms.length > 1 && !(request.mode === 'semantic' && meaning?.ranked)) {
      found = run('any');
      relaxed = true;
    }
    found.sort(comparator(request));
    if (meaning?.ranked) return this.fused(scope, sources, found, meaning, relaxed);

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
      mode_used: 'lexical', semantic_coverage: meaning?.semantic_coverage ?? null, notice: meaning?.notice ?? null,
    };
  }

  /** Keyword and meaning candidates fused per section; the top `limit` of each. */
  private fused(scope: SearchScope, sources: SearchSource[], lexical: Candidate[], meaning: MeaningPlan, relaxed: boolean): SearchReport {
    const ranked = meaning.ranked!;
    const semantic = sources.flatMap((s) => (s.byMeaning ? s.byMeaning(scope, ranked.filter((d) => s.kinds.includes(d.key.kind)).map((d) => ({ channel: d.key.channel, ref: d.key.ref, score: d.score }))) : []));
    semantic.sort((a, b) => b.score - a.score);
    const sections = Object.fromEntries(SECTION_NAMES.map((name) => [name, { hits: [], shown: 0, total: 0 } as SearchSection])) as Record<SectionName, SearchSection>;
    for (const name of SECTION_NAMES) {
      const merged = new Map<string, { c: Candidate; lr: number; sr: number }>();
      const keyOf = (c: Candidate) => c.fuseKey ?? `${c.section}\u0000${c.ref}`;
      const lex = lexical.filter((c) => c.section === name);
      lex.forEach((c, i) => merged.set(keyOf(c), { c, lr: i + 1, sr: 0 }));
      semantic.filter((c) => c.section === name).forEach((c, i) => {
        const known = merged.get(keyOf(c));
        if (known) known.sr ||= i + 1;
        else merged.set(keyOf(c), { c, lr: 0, sr: i + 1 });
      });
      const score = (x: { lr: number; sr: number }) => (x.lr ? 1 / (60 + x.lr) : 0) + (x.sr ? 2 / (60 + x.sr) : 0);
      const order = [...merged.values()].sort((a, b) => score(b) - score(a) || (a.lr || Infinity) - (b.lr || Infinity) || (a.sr || Infinity) - (b.sr || Infinity));
      sections[name].hits = order.slice(0, scope.request.limit).map((x) => x.c.hit());
      sections[name].shown = sections[name].hits.length;
      sections[name].total = Math.max(lex.length, merged.size);
    }
    return {
      ...sections, relaxed, channels_searched: scope.channels.size, next_cursor: null, computed_at: nowSeconds(),
      mode_used: meaning.mode_used, semantic_coverage: meaning.semantic_coverage, notice: null,
    };
  }
}

function comparator(request: SearchRequest): (a: Candidate, b: Candidate) => number {
  const recent = (a: Candidate, b: Candidate) => compareRecent({ at: a.at, ref: a.ref }, { at: b.at, ref: b.ref });
  if (request.sort === 'recent') return recent;
  if (request.sort === 'votes') return (a, b) => b.votes - a.votes || b.score - a.score || recent(a, b);
  return (a, b) => b.score - a.score || recent(a, b);
}
