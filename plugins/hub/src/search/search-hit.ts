/**
 * What a search source hands the search: a hit as served (seed §2.10: no body, no score), plus the
 * private facts the ranking needs. Sources know how to find and filter their own kind; ranking,
 * sections and paging are the search's.
 */
import type { SearchHit as ServedSearchHit } from '@keel/hub-client';
import type { AgentRecord } from '../records.js';
import type { HitKind, SearchRequest } from './search-request.js';

/** A served hit, its `kind` one of the hub's. */
export interface SearchHit extends ServedSearchHit {
  kind: HitKind;
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
  /** What fusing keyword and meaning results merges on (a message thread's root, a file's channel and path); default section + ref. */
  fuseKey?: string;
}

export interface SearchScope {
  viewer: AgentRecord;
  request: SearchRequest;
  /** Channels the viewer belongs to, narrowed by the `channel` filter. */
  channels: Set<string>;
}

export type MatchMode = 'all' | 'any';

/** A document semantic search ranked: its channel, `ref` (message id or file path) and closeness. */
export interface MeaningDoc {
  channel: string;
  ref: string;
  score: number;
}

export interface SearchSource {
  readonly kinds: readonly HitKind[];
  find(scope: SearchScope, mode: MatchMode): Candidate[];
  /** Candidates for documents found by meaning (best first), filtered as `find` filters; sources semantic search does not cover leave it out. */
  byMeaning?(scope: SearchScope, docs: MeaningDoc[]): Candidate[];
}

/** The time filters every source applies. */
export function inWindow(at: number, request: SearchRequest): boolean {
  return (request.since === null || at >= request.since) && (request.until === null || at <= request.until);
}
