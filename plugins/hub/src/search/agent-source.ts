/**
 * People hits: live seats matched on id, name and about. Membership-scoped like everything else —
 * a seat shows when it belongs to one of the searched channels. Filters that describe what was
 * said (`sender`, `ref`, ratings) have no meaning for a seat and leave this section empty.
 */
import type { Hub } from '../hub.js';
import type { HitKind } from './search-request.js';
import { inWindow, type Candidate, type MatchMode, type SearchScope, type SearchSource } from './search-hit.js';
import { scoreText, snippetOf } from './text-match.js';

export class AgentSource implements SearchSource {
  readonly kinds: readonly HitKind[] = ['agent'];

  constructor(private readonly hub: Hub) {}

  find(scope: SearchScope, mode: MatchMode): Candidate[] {
    const r = scope.request;
    if (!r.terms.length || r.sender !== null || r.ref !== null || r.rated !== null || r.minVotes > 0) return [];
    const out: Candidate[] = [];
    for (const a of this.hub.agents.all()) {
      if (a.retired_at !== null || !inWindow(a.created_at, r)) continue;
      if (!this.hub.db.channelsOf(a.id).some((c) => scope.channels.has(c))) continue;
      const score = scoreText(`${a.id} ${a.name}`, a.about, r.terms, mode);
      if (score === null) continue;
      out.push({
        ref: a.id,
        hit: () => ({
          kind: 'agent', ref: a.id, channel: null, seq: null, sender: null, status: null, created_at: a.created_at,
          ...snippetOf(a.about || a.name || a.id, r.terms), title: a.name || a.id, thread_hits: null, ratings: null,
        }),
        section: 'people', score, votes: 0, at: a.created_at,
      });
    }
    return out;
  }
}
