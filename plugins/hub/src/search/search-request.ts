/**
 * The `GET /search` parameters (seed §2.10 and §8, reference §1.8) and their refusals. Type and
 * range errors are schema validation (422); a wrong word for `kind`, `sort` or `rated`, or an
 * empty query without `rated`, is a teaching 400. Where the seed is explicit it wins: `limit`
 * above 10 without a `kind` is 422.
 */
import { searchQuery, type WireValue } from '@keel/hub-client/wire';
import { badRequest, defineSchema, unprocessable } from '@keel/plugin-sdk';
import { queryTerms } from './text-match.js';

export const HIT_KINDS = ['message', 'decision', 'claim', 'work', 'file', 'agent'] as const;
export type HitKind = (typeof HIT_KINDS)[number];
export type SearchSort = 'relevance' | 'recent' | 'votes';
export type RatedFilter = 'up' | 'down' | 'any';
export type SearchMode = 'auto' | 'lexical' | 'semantic';

/** The raw query as the schema leaves it. */
export type SearchQuery = WireValue<typeof searchQuery>;

export const searchQuerySchema = defineSchema(searchQuery);

export interface SearchRequest {
  terms: string[];
  channels: string[] | null;
  kind: HitKind | null;
  sender: string | null;
  ref: string | null;
  since: number | null;
  until: number | null;
  limit: number;
  cursor: string | null;
  sort: SearchSort;
  rated: RatedFilter | null;
  minVotes: number;
  /** `auto` (unset: fused when the semantic index is ready, else lexical), `lexical` or `semantic`. */
  mode: SearchMode;
}

const SORTS: readonly SearchSort[] = ['relevance', 'recent', 'votes'];
const RATED: readonly RatedFilter[] = ['up', 'down', 'any'];

export function searchRequest(query: SearchQuery): SearchRequest {
  const kind = query.kind === undefined || query.kind === '' ? null : query.kind;
  if (kind !== null && !(HIT_KINDS as readonly string[]).includes(kind)) throw badRequest(`kind must be one of ${HIT_KINDS.join(', ')} — got '${kind}'`);
  if (!(SORTS as readonly string[]).includes(query.sort)) throw badRequest(`sort must be 'relevance', 'recent' or 'votes' — got '${query.sort}'`);
  const rated = query.rated === undefined || query.rated === '' ? null : query.rated;
  if (rated !== null && !(RATED as readonly string[]).includes(rated)) throw badRequest(`rated must be 'up', 'down' or 'any' — got '${rated}'`);
  if (query.limit > 10 && kind === null) throw unprocessable('limit > 10 requires a kind filter');
  const terms = queryTerms(query.q);
  if (!terms.length && rated === null) {
    throw badRequest('q is empty — give words to search for, or set rated=up|down|any to list rated messages without a query');
  }
  const mode = query.mode || 'auto';
  if (mode !== 'auto' && mode !== 'lexical' && mode !== 'semantic') {
    throw badRequest("mode must be 'lexical' or 'semantic' (unset = auto: the hub fuses when its semantic index is ready)");
  }
  const channels = [...(query.channel ?? []), ...(query['channel[]'] ?? [])].filter(Boolean);
  return {
    terms, channels: channels.length ? [...new Set(channels)] : null, kind: kind as HitKind | null,
    sender: query.sender || null, ref: query.ref || null, since: query.since ?? null, until: query.until ?? null,
    limit: query.limit, cursor: query.cursor || null, sort: query.sort as SearchSort, rated: rated as RatedFilter | null,
    minVotes: query.min_votes, mode,
  };
}
