/**
 * The parameters of `GET /artifacts/search` (seed §4.6, reference gateway-surfaces §2.5), read and
 * checked into one request. Anything malformed is refused with 400 and a sentence naming the
 * parameter and what it accepts; nothing is silently dropped.
 */
import { badRequest } from '@keel/plugin-sdk';
import { decodeCursor, ORDER_NAMES, type Cursor, type Direction, type OrderKey } from './search-order.js';

export type Scope = 'all' | 'session' | 'run';

export interface ContentTypeFilter {
  exact: Set<string>;
  /** `image/` for `image/*`. */
  prefixes: string[];
}

export interface SearchRequest {
  scope: Scope;
  sessionId: string | null;
  runId: string | null;
  artifactKinds: string[] | null;
  semanticKinds: Set<string> | null;
  renderKinds: Set<string> | null;
  modalities: Set<string> | null;
  contentTypes: ContentTypeFilter | null;
  workflowId: string | null;
  nodeId: string | null;
  /** Inclusive bounds, ISO strings. */
  createdAfter: string | null;
  createdBefore: string | null;
  tags: Record<string, string>;
  /** Lower-cased. */
  query: string | null;
  includeStats: boolean;
  /** null: no page bound (admin `debug_unlimited`). */
  limit: number | null;
  offset: number;
  cursor: Cursor | null;
  /** The cursor as the caller sent it (echoed in the answer). */
  cursorText: string | null;
  orderBy: OrderKey;
  order: Direction;
  debugUnlimited: boolean;
}

export interface SearchLimits {
  /** Page size when `limit` is absent or `<= 0`. */
  defaultLimit: number;
  /** Cap of a positive `limit`. */
  maxLimit: number;
}

/** Every parameter the route takes (others are refused). */
export const SEARCH_PARAMETERS = [
  'scope', 'session_id', 'run_id', 'artifact_kind', 'semantic_kind', 'render_kind', 'modality', 'content_type', 'workflow_id', 'node_id',
  'created_after', 'created_before', 'tags', 'query', 'include_stats', 'limit', 'offset', 'cursor', 'order_by', 'order', 'debug_unlimited',
] as const;

export type RawSearchQuery = Partial<Record<(typeof SEARCH_PARAMETERS)[number], string>>;

const MAX_LIST_VALUES = 64;
const MAX_TAG_PAIRS = 32;
const NO_MODALITY_FILTER = new Set(['artifact', 'any', 'all', '*']);
const AUDIO_FAMILY = ['voice', 'music', 'sound', 'recording'];
const TOKEN = /^[a-z0-9][a-z0-9._:+\-/*]{0,127}$/;
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/([a-z0-9][a-z0-9!#$&^_.+-]{0,126}|\*)$/;

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

const refuse = (field: string, sentence: string) => badRequest(sentence, { code: 'invalid_search', field });

function present(value: string | undefined): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/** A comma- or pipe-separated list, lower-cased, each value a plain token. */
function list(raw: RawSearchQuery, field: 'artifact_kind' | 'semantic_kind' | 'render_kind' | 'modality'): string[] | null {
  const value = present(raw[field]);
  if (value === null) return null;
  const values = [...new Set(value.split(/[,|]/).map((v) => v.trim().toLowerCase()).filter((v) => v !== ''))];
  if (values.length === 0) return null;
  if (values.length > MAX_LIST_VALUES) throw refuse(field, `${field} takes at most ${MAX_LIST_VALUES} values.`);
  const bad = values.find((v) => !TOKEN.test(v));
  if (bad !== undefined) throw refuse(field, `${field} value '${bad.slice(0, 64)}' is not a kind name (letters, digits, '_', '-', '.', ':').`);
  return values;
}

function bool(raw: RawSearchQuery, field: 'include_stats' | 'debug_unlimited'): boolean {
  const value = present(raw[field]);
  if (value === null) return false;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  throw refuse(field, `${field} must be true or false.`);
}

function integer(raw: RawSearchQuery, field: 'limit' | 'offset'): number | null {
  const value = present(raw[field]);
  if (value === null) return null;
  if (!/^-?\d{1,15}$/.test(value)) throw refuse(field, `${field} must be a whole number.`);
  return Number(value);
}

function instant(raw: RawSearchQuery, field: 'created_after' | 'created_before'): string | null {
  const value = present(raw[field]);
  if (value === null) return null;
  const shape = /^(\d{4}-\d{2}-\d{2})(?:[T ]([0-9:.]+)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(value);
  // A time without an offset is UTC (never the server's local time); a date alone is its midnight UTC.
  const ms = shape ? Date.parse(shape[2] ? `${shape[1]}T${shape[2]}${shape[3] ?? 'Z'}` : shape[1]!) : NaN;
  if (Number.isNaN(ms)) throw refuse(field, `${field} must be an ISO 8601 date or time, like 2026-01-31 or 2026-01-31T12:00:00Z.`);
  return new Date(ms).toISOString();
}

/** `tags`: a JSON object, or a comma/newline list of `key=value` or `key:value`. */
export function parseTags(value: string | null): Record<string, string> {
  const tags = readTags(value);
  for (const [key, v] of Object.entries(tags)) if (CONTROL.test(key + v)) throw refuse('tags', 'tags contain control characters.');
  return tags;
}

function readTags(value: string | null): Record<string, string> {
  if (value === null) return {};
  const sentence = 'tags must be key=value pairs separated by commas or new lines (or a JSON object of strings), like tags=shared=user,topic=cats.';
  if (value.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw refuse('tags', sentence);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw refuse('tags', sentence);
    const entries = Object.entries(parsed as Record<string, unknown>);
    if (entries.length > MAX_TAG_PAIRS) throw refuse('tags', `tags takes at most ${MAX_TAG_PAIRS} pairs.`);
    const tags: Record<string, string> = {};
    for (const [key, v] of entries) {
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw refuse('tags', sentence);
      tags[key] = String(v);
    }
    return tags;
  }
  const pairs = value.split(/[,\n]/).map((p) => p.trim()).filter((p) => p !== '');
  if (pairs.length > MAX_TAG_PAIRS) throw refuse('tags', `tags takes at most ${MAX_TAG_PAIRS} pairs.`);
  const tags: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.search(/[=:]/);
    if (at <= 0) throw refuse('tags', sentence);
    tags[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return tags;
}

function contentTypes(value: string | null): ContentTypeFilter | null {
  if (value === null) return null;
  const filter: ContentTypeFilter = { exact: new Set(), prefixes: [] };
  for (const item of value.toLowerCase().split(',').map((v) => v.trim()).filter((v) => v !== '')) {
    if (!CONTENT_TYPE.test(item)) throw refuse('content_type', `content_type '${item.slice(0, 64)}' is not a media type; give one like image/png or a family like image/*.`);
    if (item.endsWith('/*')) filter.prefixes.push(item.slice(0, -1));
    else filter.exact.add(item);
  }
  return filter.exact.size + filter.prefixes.length === 0 ? null : filter;
}

function id(raw: RawSearchQuery, field: 'session_id' | 'run_id' | 'workflow_id' | 'node_id'): string | null {
  const value = present(raw[field]);
  if (value !== null && value.length > 512) throw refuse(field, `${field} is longer than 512 characters.`);
  return value;
}

export function parseSearch(raw: RawSearchQuery, limits: SearchLimits): SearchRequest {
  const sessionId = id(raw, 'session_id');
  const runId = id(raw, 'run_id');
  const scopeText = present(raw.scope)?.toLowerCase() ?? null;
  let scope: Scope;
  if (scopeText === null) {
    if (sessionId && runId) throw refuse('scope', 'Give scope=session with session_id or scope=run with run_id, not both ids.');
    scope = runId ? 'run' : sessionId ? 'session' : 'all';
  } else if (scopeText === 'all' || scopeText === 'session' || scopeText === 'run') {
    scope = scopeText;
  } else {
    throw refuse('scope', "scope must be 'all', 'session' or 'run'.");
  }
  if (scope === 'session' && !sessionId) throw refuse('session_id', 'scope=session needs a session_id.');
  if (scope === 'run' && !runId) throw refuse('run_id', 'scope=run needs a run_id.');
  if (scope === 'all' && (sessionId || runId)) throw refuse('scope', 'scope=all searches every artifact of your account; use scope=session with session_id or scope=run with run_id to narrow it.');
  if (scope === 'session' && runId) throw refuse('run_id', 'scope=session takes a session_id, not a run_id.');
  if (scope === 'run' && sessionId) throw refuse('session_id', 'scope=run takes a run_id, not a session_id.');

  let modalities = list(raw, 'modality');
  if (modalities?.some((m) => NO_MODALITY_FILTER.has(m))) modalities = null;
  if (modalities?.includes('audio')) modalities = [...new Set([...modalities, ...AUDIO_FAMILY])];

  const createdAfter = instant(raw, 'created_after');
  const createdBefore = instant(raw, 'created_before');
  if (createdAfter && createdBefore && createdAfter > createdBefore) throw refuse('created_after', 'created_after is later than created_before, so nothing could match.');

  const orderName = present(raw.order_by)?.toLowerCase() ?? 'created_at';
  if (orderName === 'last_access' || orderName === 'last_accessed_at') throw refuse('order_by', 'This gateway does not record when artifacts are read, so it cannot order by last access; order by created_at instead.');
  const orderBy = Object.hasOwn(ORDER_NAMES, orderName) ? ORDER_NAMES[orderName] : undefined;
  if (!orderBy) throw refuse('order_by', `order_by must be one of ${Object.keys(ORDER_NAMES).join(', ')}.`);
  const orderText = present(raw.order)?.toLowerCase() ?? 'desc';
  if (orderText !== 'asc' && orderText !== 'desc') throw refuse('order', "order must be 'asc' or 'desc'.");

  const debugUnlimited = bool(raw, 'debug_unlimited');
  const asked = integer(raw, 'limit');
  let limit: number | null;
  if (asked === null || asked <= 0) limit = debugUnlimited ? null : limits.defaultLimit;
  else limit = Math.min(asked, limits.maxLimit);
  const offset = integer(raw, 'offset') ?? 0;
  if (offset < 0) throw refuse('offset', 'offset must be 0 or more.');

  const cursorText = present(raw.cursor);
  const query = present(raw.query);
  if (query !== null && query.length > 1024) throw refuse('query', 'query is longer than 1024 characters.');
  if (query !== null && CONTROL.test(query)) throw refuse('query', 'query contains control characters.');
  return {
    scope,
    sessionId,
    runId,
    artifactKinds: list(raw, 'artifact_kind'),
    semanticKinds: setOf(list(raw, 'semantic_kind')),
    renderKinds: setOf(list(raw, 'render_kind')),
    modalities: setOf(modalities),
    contentTypes: contentTypes(present(raw.content_type)),
    workflowId: id(raw, 'workflow_id'),
    nodeId: id(raw, 'node_id'),
    createdAfter,
    createdBefore,
    tags: parseTags(present(raw.tags)),
    query: query === null ? null : query.toLowerCase(),
    includeStats: bool(raw, 'include_stats'),
    limit,
    offset,
    cursor: cursorText === null ? null : decodeCursor(cursorText, orderBy, orderText),
    cursorText,
    orderBy,
    order: orderText,
    debugUnlimited,
  };
}

function setOf(values: string[] | null): Set<string> | null {
  return values ? new Set(values) : null;
}

/** The non-empty filters of a request, as the stats answer lists them. */
export function filtersOf(request: SearchRequest): Record<string, unknown> {
  const filters: Record<string, unknown> = { scope: request.scope };
  if (request.sessionId) filters.session_id = request.sessionId;
  if (request.runId) filters.run_id = request.runId;
  if (request.artifactKinds) filters.artifact_kind = request.artifactKinds;
  if (request.semanticKinds) filters.semantic_kind = [...request.semanticKinds];
  if (request.renderKinds) filters.render_kind = [...request.renderKinds];
  if (request.modalities) filters.modality = [...request.modalities];
  if (request.contentTypes) filters.content_type = [...request.contentTypes.exact, ...request.contentTypes.prefixes.map((p) => `${p}*`)];
  if (request.workflowId) filters.workflow_id = request.workflowId;
  if (request.nodeId) filters.node_id = request.nodeId;
  if (request.createdAfter) filters.created_after = request.createdAfter;
  if (request.createdBefore) filters.created_before = request.createdBefore;
  if (Object.keys(request.tags).length > 0) filters.tags = request.tags;
  if (request.query) filters.query = request.query;
  return filters;
}
