/**
 * What a search source hands the search: a hit as served (seed §2.10: no body, no score), plus the
 * private facts the ranking needs. Sources know how to find and filter their own kind; ranking,
 * sections and paging are the search's.
 */
import type { AgentRecord } from '../records.js';
import type { HitKind, SearchRequest } from './search-request.js';

export interface SearchHit {
  kind: HitKind;
  ref: string;
  channel: string | null;
  seq: number | null;
  sender: string | null;
  status: string | null;
  created_at: number;
  snippet: string;
  highlights: Array<[number, number]>;
  title: string;
  thread_hits: number | null;
  ratings: { up: number; down: number; mine: -1 | 0 | 1 } | null;
}

export type SectionName = 'decisions' | 'open_threads' | 'work' | 'people' | 'files' | 'messages';
export const SECTION_NAMES: readonly SectionName[] = ['decisions', 'open_threads', 'work', 'people', 'files', 'messages'];

export interface Candidate {
  /** The hit's `ref` (the paging keyset needs it before the hit is built). */
  ref: string;
  /** Builds the served hit; only shown hits are built, so snippets are cut for a page, not for every match. */
  hit: () => SearchHit;
  section: SectionName;
  /** Lexical relevance (higher is better). */
  score: number;
  /** Net rating (up − down); 0 for kinds that take no ratings. */
  votes: number;
  /** Recency key: when the hit was written or last updated. */
  at: number;
}

export interface SearchScope {
  viewer: AgentRecord;
  request: SearchRequest;
  /** Channels the viewer belongs to, narrowed by the `channel` filter. */
  channels: Set<string>;
}

export type MatchMode = 'all' | 'any';

export interface SearchSource {
  readonly kinds: readonly HitKind[];
  find(scope: SearchScope, mode: MatchMode): Candidate[];
}

/** The time filters every source applies. */
export function inWindow(at: number, request: SearchRequest): boolean {
  return (request.since === null || at >= request.since) && (request.until === null || at <= request.until);
}
