/**
 * Decision, claim and work hits: the `decision:<slug>`, `claim:<item>` and `work:<item>` store rows
 * of the scoped channels, matched on key, title and the text fields of the value. `ref` narrows to
 * one work item the way `/work/{item}` does: its work row and claims by key, decisions that mention
 * it. Decisions fill `decisions`; claims and work rows fill `work`.
 */
import type { StoreEntry } from '@keel/hub-client';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { HitKind } from './search-request.js';
import { inWindow, type Candidate, type MatchMode, type SearchScope, type SearchSource } from './search-hit.js';
import { scoreText, snippetOf } from './text-match.js';

type StoreKind = 'decision' | 'claim' | 'work';
const KINDS: readonly StoreKind[] = ['decision', 'claim', 'work'];
const MAX_DEPTH = 4;

/** The string leaves of a JSON value, so `{title, text, notes: [...]}` reads as prose. */
function textOf(value: unknown, depth = 0): string {
  if (typeof value === 'string') return value;
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return '';
  return Object.values(value as Record<string, unknown>).map((v) => textOf(v, depth + 1)).filter(Boolean).join('\n');
}

function field(value: unknown, name: string): string | null {
  const v = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' ? v : null;
}

function refMatches(kind: StoreKind, e: StoreEntry, ref: string | null): boolean {
  if (ref === null) return true;
  if (kind === 'work') return e.key === `work:${ref}`;
  if (kind === 'claim') return e.key === `claim:${ref}` || e.key.startsWith(`claim:${ref}:`);
  return `${e.key}\n${textOf(e.value)}`.toLowerCase().includes(ref.toLowerCase());
}

export class StoreSource implements SearchSource {
  readonly kinds: readonly HitKind[] = KINDS;

  constructor(private readonly store: ChannelStore) {}

  find(scope: SearchScope, mode: MatchMode): Candidate[] {
    const r = scope.request;
    if (!r.terms.length || r.rated !== null || r.minVotes > 0) return [];
    const kinds = KINDS.filter((k) => r.kind === null || r.kind === k);
    const out: Candidate[] = [];
    for (const channel of scope.channels) {
      for (const kind of kinds) {
        for (const e of this.store.withPrefix(channel, `${kind}:`)) {
          if ((r.sender !== null && e.updated_by !== r.sender) || !inWindow(e.updated_at, r) || !refMatches(kind, e, r.ref)) continue;
          const title = field(e.value, 'title') ?? e.key;
          const text = textOf(e.value);
          const score = scoreText(`${e.key.replace(/[:_-]+/g, ' ')} ${title}`, text, r.terms, mode);
          if (score === null) continue;
          out.push({
            ref: e.key,
            hit: () => ({
              kind, ref: e.key, channel, seq: null, sender: e.updated_by, status: field(e.value, 'status'), created_at: e.updated_at,
              ...snippetOf(text || e.key, r.terms), title, thread_hits: null, ratings: null,
            }),
            section: kind === 'decision' ? 'decisions' : 'work', score, votes: 0, at: e.updated_at,
          });
        }
      }
    }
    return out;
  }
}
