/**
 * `GET /artifacts/search` and `GET /artifacts/stats` (seed §4.6, reference gateway-surfaces §2.5):
 * every artifact of the caller's own account, narrowed to a session (its artifacts and the owner's
 * `shared: user` ones) or to a run the caller owns. Another account's artifacts are never read: the
 * pass runs inside the caller's account plane, and a session or run of another account answers 404
 * like an unknown one.
 */
import { badRequest, defineSchema, forbidden, notFound, route, type AnyRoute, type AuthService, type Principal } from '@keel/plugin-sdk';
import type { ArtifactScopes } from '../artifact-scope.js';
import { runSearch, searchAnswer, statsOf, type SearchSource } from './artifact-search.js';
import type { RowScope } from './search-filter.js';
import { parseSearch, SEARCH_PARAMETERS, type RawSearchQuery, type SearchRequest } from './search-params.js';

export interface SearchSettings {
  /** Page size when `limit` is absent or `<= 0`. */
  defaultLimit: number;
  /** Cap of a positive `limit`. */
  maxLimit: number;
  /** Rows an admin's `debug_unlimited` page may hold at most. */
  debugMaxRows: number;
}

const MAX_PARAM = 4096;
const searchQuery = defineSchema({
  type: 'object',
  properties: Object.fromEntries(SEARCH_PARAMETERS.map((name) => [name, { type: 'string', maxLength: MAX_PARAM }])),
});
const STATS_PARAMETERS = new Set<string>(SEARCH_PARAMETERS.filter((p) => !['limit', 'offset', 'cursor', 'order_by', 'order', 'include_stats', 'debug_unlimited'].includes(p)));
const SUPPORTED_FILTERS = ['scope', 'session_id', 'run_id', 'artifact_kind', 'modality', 'semantic_kind', 'render_kind', 'workflow_id', 'node_id', 'content_type', 'created_after', 'created_before', 'tags', 'query'];

export interface SearchRouteDeps {
  source: SearchSource;
  scopes: ArtifactScopes;
  auth: AuthService;
  settings: () => SearchSettings;
}

function refuseUnknown(query: Record<string, unknown>, accepted: ReadonlySet<string>): void {
  const unknown = Object.keys(query).filter((key) => !accepted.has(key));
  if (unknown.length > 0) {
    throw badRequest(`Unknown parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k.slice(0, 64)}'`).join(', ')}; accepted: ${[...accepted].join(', ')}.`, { code: 'invalid_search', field: unknown[0]!.slice(0, 64) });
  }
}

export function searchRoutes(deps: SearchRouteDeps): AnyRoute[] {
  const { source, scopes, auth } = deps;
  const allParameters = new Set<string>(SEARCH_PARAMETERS);

  /** The rows the request may reach, all inside the caller's own account. */
  const scopeOf = async (principal: Principal, request: SearchRequest): Promise<RowScope> => {
    if (request.scope === 'session') {
      if (!(await scopes.sessionExists(principal.account, request.sessionId!))) {
        throw notFound({ reason_code: 'session_not_found', message: `Session ${request.sessionId} does not exist.` });
      }
      return { kind: 'session', sessionId: request.sessionId! };
    }
    if (request.scope === 'run') {
      const scope = await scopes.ofRun(principal, request.runId!);
      // An admin may open another account's run elsewhere; search stays inside the caller's own artifacts.
      if (scope.account !== principal.account) throw notFound(`Run '${request.runId}' not found.`, { code: 'run_not_found' });
      return { kind: 'run', runId: scope.run ? scope.run_id : null, sessionId: scope.session_id };
    }
    return { kind: 'all' };
  };

  const read = (query: Record<string, unknown>, principal: Principal, accepted: ReadonlySet<string>) => {
    refuseUnknown(query, accepted);
    const settings = deps.settings();
    const request = parseSearch(query as RawSearchQuery, settings);
    if (request.debugUnlimited && !auth.isAdmin(principal)) throw forbidden('debug_unlimited is for admins; page through the results with limit and next_cursor instead.');
    return { request, settings };
  };

  return [
    route({
      method: 'GET',
      path: '/artifacts/search',
      summary: 'Search your artifacts (filters, paging by offset or cursor, exact stats and facets with include_stats)',
      description:
        'Parameters: scope (all | session | run), session_id, run_id, artifact_kind (comma or pipe list matching semantic_kind, render_kind or modality; `audio` = unclassified audio), semantic_kind, render_kind, modality, content_type (exact or `type/*`), workflow_id, node_id, created_after, created_before (inclusive), tags (`key=value` list or JSON object), query (case-insensitive), include_stats, limit (default 500; `<= 0` is the default unless an admin sets debug_unlimited), offset, cursor, order_by, order. Every row carries `artifact_envelope_v1`.',
      tags: ['artifacts'],
      query: searchQuery,
      handler: async ({ query, principal }) => {
        const { request, settings } = read(query, principal, allParameters);
        const scope = await scopeOf(principal, request);
        const outcome = runSearch(source, principal.account, scope, request, settings.debugMaxRows);
        return searchAnswer(source, principal.account, request, outcome, []);
      },
    }),
    route({
      method: 'GET',
      path: '/artifacts/stats',
      summary: 'Exact totals, byte totals and facet counts of your artifacts under the search filters',
      tags: ['artifacts'],
      query: searchQuery,
      handler: async ({ query, principal }) => {
        const { request, settings } = read(query, principal, STATS_PARAMETERS);
        const scope = await scopeOf(principal, request);
        const outcome = runSearch(source, principal.account, scope, { ...request, includeStats: true, limit: 0, offset: 0, cursor: null }, settings.debugMaxRows);
        const stats = statsOf(request, outcome.stats!, []);
        return { ok: true, scope: request.scope, total: stats.total, total_bytes: stats.total_bytes, filters: stats.filters, facets: stats.facets, supported_filters: SUPPORTED_FILTERS, default_page_size: settings.defaultLimit };
      },
    }),
  ] as AnyRoute[];
}
