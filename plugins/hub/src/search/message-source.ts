/**
 * Message hits: live `kind: message` rows of the scoped channels, matched on title and body.
 * Candidates come from the index (or, for a rated-only listing, from the ratings table), and each
 * is re-read and re-checked, so retracted rows never match. Hits collapse to one row per thread
 * root — the thread's best row for the chosen sort — with `thread_hits` counting the matches;
 * threads whose root still carries a live obligation go to `open_threads`.
 */
import type { Hub } from '../hub.js';
import type { StoredMessage } from '../records.js';
import type { MessageIndex } from './message-index.js';
import type { HitKind, SearchRequest } from './search-request.js';
import { inWindow, type Candidate, type MatchMode, type MeaningDoc, type SearchScope, type SearchSource } from './search-hit.js';
import { scoreText, snippetOf } from './text-match.js';
import { prefixRange } from '@keel/plugin-sdk';

type Ratings = { up: number; down: number; mine: -1 | 0 | 1 };

interface Match {
  m: StoredMessage;
  score: number;
  /** Read up front only when a filter or the votes sort needs it; otherwise when the hit is served. */
  ratings: Ratings | null;
}

const SETTLING = new Set(['open', 'blocked']);
const MAX_THREAD_DEPTH = 1000;

export class MessageSource implements SearchSource {
  readonly kinds: readonly HitKind[] = ['message'];

  constructor(private readonly hub: Hub, private readonly index: MessageIndex) {}

  find(scope: SearchScope, mode: MatchMode): Candidate[] {
    const r = scope.request;
    const matches: Match[] = [];
    const needRatings = r.rated !== null || r.minVotes > 0 || r.sort === 'votes';
    for (const m of this.candidates(scope, mode)) {
      if (m.kind !== 'message' || m.retracted_at !== null || !scope.channels.has(m.channel)) continue;
      if ((r.sender !== null && m.sender !== r.sender) || !inWindow(m.created_at, r) || !refMatches(m, r.ref)) continue;
      const score = scoreText(m.title, m.body, r.terms, mode);
      if (score === null) continue;
      const ratings = needRatings ? this.hub.facts.ratings(m, scope.viewer.id) : null;
      if (ratings && !ratedMatches(ratings, r)) continue;
      matches.push({ m, score, ratings });
    }
    return this.collapse(matches, r, scope.viewer.id);
  }

  /** Messages found by meaning, through the same filters as `find`, scored by closeness, collapsed per thread. */
  byMeaning(scope: SearchScope, docs: MeaningDoc[]): Candidate[] {
    const r = scope.request;
    const matches: Match[] = [];
    const needRatings = r.rated !== null || r.minVotes > 0 || r.sort === 'votes';
    for (const doc of docs) {
      const m = this.hub.db.messageById(doc.ref);
      if (!m || m.kind !== 'message' || m.retracted_at !== null || m.channel !== doc.channel || !scope.channels.has(m.channel)) continue;
      if ((r.sender !== null && m.sender !== r.sender) || !inWindow(m.created_at, r) || !refMatches(m, r.ref)) continue;
      const ratings = needRatings ? this.hub.facts.ratings(m, scope.viewer.id) : null;
      if (ratings && !ratedMatches(ratings, r)) continue;
      matches.push({ m, score: doc.score, ratings });
    }
    return this.collapse(matches, r, scope.viewer.id, true).sort((a, b) => b.score - a.score);
  }

  /** Messages that may match: from the index by the rarest term (`all`) or every term (`any`), else every rated row. */
  private *candidates(scope: SearchScope, mode: MatchMode): Generator<StoredMessage> {
    const db = this.hub.db;
    const seen = new Set<string>();
    if (!scope.request.terms.length) {
      for (const channel of scope.channels) {
        for (const key of db.ratings.getKeys(prefixRange([channel]))) {
          if (seen.has(key[1])) continue;
          seen.add(key[1]);
          const m = db.messageById(key[1]);
          if (m) yield m;
        }
      }
      return;
    }
    const lists = scope.request.terms.map((t) => this.index.candidates(t));
    const chosen = mode === 'all' ? [lists.reduce((a, b) => (b.length < a.length ? b : a))] : lists;
    for (const list of chosen) {
      for (const ref of list) {
        const key = `${ref.channel}\u0000${ref.seq}`;
        if (seen.has(key) || !scope.channels.has(ref.channel)) continue;
        seen.add(key);
        const m = db.messages.get([ref.channel, ref.seq]);
        if (m) yield m;
      }
    }
  }

  private collapse(matches: Match[], r: SearchRequest, viewer: string, byScore = false): Candidate[] {
    const threads = new Map<string, Match[]>();
    const roots = new Map<string, StoredMessage>();
    for (const match of matches) {
      const root = this.rootOf(match.m, roots);
      const group = threads.get(root.id);
      if (group) group.push(match);
      else threads.set(root.id, [match]);
    }
    const better = (a: Match, b: Match): boolean => {
      const net = (x: Match) => (x.ratings ? x.ratings.up - x.ratings.down : 0);
      if ((byScore || r.sort === 'relevance') && a.score !== b.score) return a.score > b.score;
      if (r.sort === 'votes' && net(a) !== net(b)) return net(a) > net(b);
      return a.m.created_at > b.m.created_at;
    };
    const out: Candidate[] = [];
    for (const [rootId, group] of threads) {
      const best = group.reduce((a, b) => (better(b, a) ? b : a));
      const { m } = best;
      out.push({
        ref: m.id,
        hit: () => ({
          kind: 'message', ref: m.id, channel: m.channel, seq: m.seq, sender: m.sender, status: m.status, created_at: m.created_at,
          ...snippetOf(m.body || m.title, r.terms), title: m.title, thread_hits: group.length,
          ratings: best.ratings ?? this.hub.facts.ratings(m, viewer),
        }),
        section: this.isOpen(roots.get(rootId)!) ? 'open_threads' : 'messages',
        score: best.score, votes: best.ratings ? best.ratings.up - best.ratings.down : 0, at: m.created_at, fuseKey: `thread\u0000${rootId}`,
      });
    }
    return out;
  }

  /** The top of a reply chain (same channel), memoised per search. */
  private rootOf(m: StoredMessage, memo: Map<string, StoredMessage>): StoredMessage {
    const trail: StoredMessage[] = [];
    let at = m;
    for (let depth = 0; at.reply_to && depth < MAX_THREAD_DEPTH; depth++) {
      const known = memo.get(at.id);
      if (known) {
        at = known;
        break;
      }
      trail.push(at);
      const parent = this.hub.db.messageById(at.reply_to);
      if (!parent || parent.channel !== at.channel) break;
      at = parent;
    }
    for (const t of trail) memo.set(t.id, at);
    memo.set(at.id, at);
    return at;
  }

  /** A live obligation: the root is open or blocked, not retracted, and neither resolved nor fully discharged. */
  private isOpen(root: StoredMessage): boolean {
    if (root.retracted_at !== null || root.kind !== 'message' || !SETTLING.has(root.status)) return false;
    const facts = this.hub.facts;
    if (facts.replies(root).some((x) => x.status === 'resolved')) return false;
    return facts.askIds(root).length === 0 || facts.pendingAsks(root).length > 0;
  }
}

function refMatches(m: StoredMessage, ref: string | null): boolean {
  if (ref === null) return true;
  if (m.data?.item_ref === ref) return true;
  return `${m.title}\n${m.body}`.toLowerCase().includes(ref.toLowerCase());
}

function ratedMatches(ratings: { up: number; down: number }, r: SearchRequest): boolean {
  const voices = ratings.up + ratings.down;
  if (voices < r.minVotes) return false;
  if (r.rated === 'up') return ratings.up > ratings.down;
  if (r.rated === 'down') return ratings.down > ratings.up;
  if (r.rated === 'any') return voices > 0;
  return true;
}
