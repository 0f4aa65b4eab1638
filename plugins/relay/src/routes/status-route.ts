/**
 * `GET /v1/relay/status` (reference §1.7): the relay's diagnostics, composed per request from what
 * each part contributes (`StatusParts`: cached answers only, never a subprocess or the network).
 * `?activity_only=true` is the poller's pulse `{requests_total}`: the gate checks only its token.
 */
import { defineSchema, route, schema, type Authenticator } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { RelayCaller, StatusParts } from '../contracts.js';
import type { RelayGateView } from '../gate/relay-gate.js';
import { tokenFingerprint, type RelayToken } from '../gate/relay-token.js';

export interface StatusRouteDeps {
  config: RelayConfig;
  gate: RelayGateView;
  auth: Authenticator<RelayCaller>;
  token: RelayToken;
  parts: StatusParts;
  version: string;
  prefix: string;
  pluginDir: string;
  logsDir: string;
  /** The relay's published routes (`GET /v1/models`, ...), read when asked. */
  supportedRoutes: () => string[];
}

export const RELAY_APP_NAME = 'Keel relay';

const statusQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { activity_only: { type: 'string', enum: ['true', 'false'], description: '`true`: answer `{requests_total}` only.' } },
});

export function statusRoute(deps: StatusRouteDeps) {
  return route({
    method: 'GET',
    path: '/relay/status',
    auth: deps.auth,
    tags: ['relay'],
    summary: 'Relay diagnostics: activity counter, readiness, providers, gate and storage',
    description: 'Monitoring route: not counted in `requests_total`. `activity_only=true` answers `{requests_total}` only, and takes no rate-limit token and no concurrency slot.',
    query: statusQuery,
    responses: { 200: { description: 'The status (reference §1.7 shape), or `{requests_total}` with `activity_only=true`.', schema: schema({ type: 'object', required: ['requests_total'] }) } },
    handler: ({ query, principal }) => {
      if (query.activity_only === 'true') return { requests_total: deps.gate.requestsTotal() };
      return statusOf(deps, principal.clientIp);
    },
  });
}

export function statusOf(deps: StatusRouteDeps, clientIp: string): Record<string, unknown> {
  const { config, token } = deps;
  const hosted = deps.parts.hosted?.() ?? { enabled: config.hosted.enabled, ready_for_requests: false, accounts: [], notes: ['The account pool is not part of this build.'] };
  const cli = deps.parts.cli?.() ?? (config.cli.enabled
    ? { enabled: true, ready_for_requests: false, notes: ['The local command-line client is not part of this build.'] }
    : { enabled: false, ready_for_requests: false, notes: ['Set relay.cli.enabled to true to serve cli: models.'] });
  const hostedReady = config.hosted.enabled && (hosted.ready_for_requests === true || anyAccountReady(hosted.accounts));
  const cliReady = config.cli.enabled && cli.ready_for_requests === true;
  const tokenReady = !config.auth.requireBearerAuth || token.value !== null;
  return {
    object: 'relay.status',
    app_name: RELAY_APP_NAME,
    version: deps.version,
    requests_total: deps.gate.requestsTotal(),
    ready: { upstream_auth: hostedReady, relay_token: tokenReady, any_provider: hostedReady || cliReady, providers: { hosted: hostedReady, cli: cliReady } },
    providers: { hosted, cli },
    relay: {
      base_path: deps.prefix,
      data_dir: deps.pluginDir,
      logs_dir: deps.logsDir,
      token: { present: token.value !== null, source: token.source, file: token.file, fingerprint: token.value === null ? null : tokenFingerprint(token.value) },
      gate: config.gate,
      hosted: { enabled: config.hosted.enabled, account_count: config.hosted.accounts.length, balance: config.hosted.balance, models_cache_ttl_seconds: config.hosted.modelsCacheTtlSeconds, retry_attempts: config.hosted.retryAttempts, retry_backoff_seconds: config.hosted.retryBackoffSeconds },
      cli: { enabled: config.cli.enabled, command: config.cli.command, timeout_seconds: config.cli.timeoutSeconds, max_concurrent_requests: config.cli.maxConcurrentRequests },
      logging: { dir: deps.logsDir, stream_lines: config.logging.streamLines },
    },
    security: deps.gate.security(clientIp),
    storage: deps.parts.storage?.() ?? null,
    supported_routes: deps.supportedRoutes(),
  };
}

/** The pool's fragment lists its accounts (reference §3.10): hosted is ready when one of them is. */
function anyAccountReady(accounts: unknown): boolean {
  return Array.isArray(accounts) && accounts.some((a) => (a as { ready_for_requests?: unknown }).ready_for_requests === true);
}
