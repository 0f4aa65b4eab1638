/**
 * The relay's bearer gate (reference §1.1), as the route authenticator of every `/v1/*` route and of
 * the mount's unmatched paths. Per request, in order: client address → refused while blocked for
 * bad tokens (429 `ip_temporarily_blocked`) → refused at `concurrentRequestsPerIp` in flight (429
 * `too_many_concurrent_requests`) → refused with an empty bucket (429 `rate_limit_exceeded`) → the
 * bearer token, compared in constant time (401 `invalid_api_key`; the failure counts toward the
 * block). The slot is held until the response ends. Open mode skips only the token check.
 *
 * The relay counts its bad tokens itself: it refuses with its own 401, which the kernel's
 * `server.authFailures` throttle does not count, so one bad relay token is counted once, by the
 * address the gate sees (X-Forwarded-For when trusted). The kernel's throttle still refuses, before
 * the gate, a socket peer it throttled for bad kernel tokens.
 */
import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defineAuthenticator, tooManyRequests, unauthorized, type Authenticator, type Clock } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { RelayCaller, TrafficSink } from '../contracts.js';
import { clientIpOf } from './client-ip.js';
import { ConcurrencySlots } from './concurrency-slots.js';
import { FailedAuthBlock } from './failed-auth-block.js';
import { isActivityOnly, isMonitoringPath, relayPathOf } from './monitoring-paths.js';
import { tokenFingerprint } from './relay-token.js';
import { TokenBuckets } from './token-bucket.js';

/** The scheme name in the OpenAPI document, and what a mount's `guardUnmatched` names. */
export const RELAY_AUTHENTICATOR_NAME = 'relayToken';

export interface RelayGateDeps {
  /** The relay token, or null (open mode without one). */
  token: string | null;
  clock: Clock;
  traffic: TrafficSink;
  /** The relay's mount prefix (`/v1`): monitoring paths and `activity_only` are relative to it. */
  prefix: string;
}

/** What the status route shows of the gate (reference §1.7 `security`). */
export interface RelayGateView {
  requestsTotal(): number;
  security(clientIp: string): Record<string, unknown>;
}

export interface RelayGate extends RelayGateView {
  authenticator: Authenticator<RelayCaller>;
  /** The `endpoint_security_ready` record, written once at start. */
  announce(tokenCreated: boolean): void;
}

const UNAUTHORIZED_SENTENCE = 'Missing or invalid relay bearer token: send the header Authorization: Bearer <relay token> (`keel relay status` says where the token is).';

export function relayGate(config: RelayConfig, deps: RelayGateDeps): RelayGate {
  const { gate, auth } = config;
  const block = new FailedAuthBlock({ windowSeconds: gate.failedAuthWindowSeconds, maxAttempts: gate.failedAuthMaxAttempts, blockSeconds: gate.failedAuthBlockSeconds }, deps.clock);
  const slots = new ConcurrencySlots(gate.concurrentRequestsPerIp);
  const buckets = new TokenBuckets(gate.rateLimitPerMinute, gate.rateLimitBurst, deps.clock);
  const expected = deps.token === null ? null : digest(deps.token);
  let requestsTotal = 0;
  const requestIds = new RandomHexIds();

  const reject = (requestId: string, clientIp: string, reason: string, code: string, retryAfter: number, sentence: string): Error => {
    deps.traffic.write({ phase: 'endpoint_rejected', request_id: requestId, client_ip: clientIp, reason, status_code: 429, retry_after_seconds: retryAfter });
    return tooManyRequests(sentence, { code, headers: { 'retry-after': String(retryAfter) } });
  };

  /** The token check of step 5: throws the 401 (and counts the failure) unless the credential is the relay token. */
  const checkToken = (credential: string | null, request: IncomingMessage, clientIp: string, requestId: string): void => {
    if (!auth.requireBearerAuth) return;
    if (credential !== null && expected !== null && timingSafeEqual(digest(credential), expected)) return;
    const { blocked, blockSeconds } = block.record(clientIp);
    deps.traffic.write({
      phase: 'endpoint_auth_failed', request_id: requestId, method: request.method, path: relayPathOf(request.url, '/') ?? request.url,
      client_ip: clientIp, headers: request.headers, token_fingerprint: credential === null ? null : tokenFingerprint(credential), blocked, block_seconds: blocked ? blockSeconds : 0,
    });
    throw unauthorized(UNAUTHORIZED_SENTENCE, { code: 'invalid_api_key', headers: { 'www-authenticate': 'Bearer' } });
  };

  const authenticate = (credential: string | null, request: IncomingMessage, response?: ServerResponse): RelayCaller => {
    if (response) stampOverhead(response);
    const clientIp = clientIpOf(request, gate.trustXForwardedFor);
    const requestId = `req_${requestIds.next()}`;
    const blockedFor = block.blockedFor(clientIp);
    if (blockedFor > 0) {
      throw reject(requestId, clientIp, 'auth_block_active', 'ip_temporarily_blocked', blockedFor,
        `Too many bad relay tokens from ${clientIp}: this address is blocked for ${blockedFor} more s; then retry with the right token.`);
    }
    if (isActivityOnly(request.method, request.url, deps.prefix)) {
      checkToken(credential, request, clientIp, requestId);
      return { clientIp, requestId, request };
    }
    if (slots.of(clientIp) >= gate.concurrentRequestsPerIp) {
      throw reject(requestId, clientIp, 'concurrency_limit', 'too_many_concurrent_requests', 1,
        `${clientIp} already has ${gate.concurrentRequestsPerIp} requests in flight (the setting relay.gate.concurrentRequestsPerIp); retry when one ends.`);
    }
    if (!buckets.take(clientIp)) {
      throw reject(requestId, clientIp, 'request_rate_limit', 'rate_limit_exceeded', 1,
        `Rate limit exceeded for ${clientIp}: ${gate.rateLimitPerMinute} requests a minute with bursts of ${gate.rateLimitBurst} (the settings relay.gate.rateLimitPerMinute and rateLimitBurst); retry in a second.`);
    }
    holdSlot(slots, clientIp, request, response);
    checkToken(credential, request, clientIp, requestId);
    if (!isMonitoringPath(relayPathOf(request.url, deps.prefix))) requestsTotal += 1;
    return { clientIp, requestId, request };
  };

  return {
    authenticator: defineAuthenticator<RelayCaller>({
      name: RELAY_AUTHENTICATOR_NAME,
      scheme: { type: 'http', scheme: 'bearer', description: 'The relay token: RELAY_TOKEN, or the file relay.auth.tokenFile under the relay\'s data folder.' },
      authenticate,
    }),
    requestsTotal: () => requestsTotal,
    announce(tokenCreated) {
      deps.traffic.write({
        phase: 'endpoint_security_ready', request_id: 'startup', require_bearer_auth: auth.requireBearerAuth, bearer_token_present: deps.token !== null,
        bearer_token_created: tokenCreated, rate_limit_per_minute: gate.rateLimitPerMinute, rate_limit_burst: gate.rateLimitBurst,
        concurrent_requests_per_ip: gate.concurrentRequestsPerIp, failed_auth_window_seconds: gate.failedAuthWindowSeconds,
        failed_auth_max_attempts: gate.failedAuthMaxAttempts, failed_auth_block_seconds: gate.failedAuthBlockSeconds, trust_x_forwarded_for: gate.trustXForwardedFor,
      });
    },
    security(clientIp) {
      return {
        protected_routes: [`${deps.prefix.replace(/\/+$/, '')}/*`],
        require_bearer_auth: auth.requireBearerAuth,
        bearer_token_present: deps.token !== null,
        rate_limit_per_minute: gate.rateLimitPerMinute,
        rate_limit_burst: gate.rateLimitBurst,
        concurrent_requests_per_ip: gate.concurrentRequestsPerIp,
        concurrency_slot_held_until_response_ends: true,
        failed_auth_window_seconds: gate.failedAuthWindowSeconds,
        failed_auth_max_attempts: gate.failedAuthMaxAttempts,
        failed_auth_block_seconds: gate.failedAuthBlockSeconds,
        trust_x_forwarded_for: gate.trustXForwardedFor,
        tracked_clients: Math.max(buckets.tracked, block.tracked),
        blocked_clients: block.blocked,
        active_clients: slots.clients,
        client: {
          ip: clientIp,
          allowance_remaining: buckets.remaining(clientIp),
          active_requests: slots.of(clientIp),
          failed_auth_attempts: block.attempts(clientIp),
          blocked_for_seconds: block.blockedFor(clientIp),
        },
      };
    },
  };
}

/**
 * Every answer of a gated path carries `x-relay-overhead-ms` (the issue's "overhead header on every
 * response"), the refusals of the gate included: stamped when the head goes out, unless the route set
 * its own (the text routes subtract the time spent waiting for the upstream; elsewhere it is the time
 * since the gate saw the request).
 */
function stampOverhead(response: ServerResponse): void {
  const began = performance.now();
  const writeHead = response.writeHead;
  response.writeHead = function stamped(this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!this.headersSent && !this.hasHeader(OVERHEAD_HEADER)) this.setHeader(OVERHEAD_HEADER, (performance.now() - began).toFixed(3));
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

const OVERHEAD_HEADER = 'x-relay-overhead-ms';

/** Equal-length digests, so the comparison takes the same time whatever the token's length. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** Frees the slot when the answer ends (or the client goes away); on an upgrade, when the request closes. */
function holdSlot(slots: ConcurrencySlots, ip: string, request: IncomingMessage, response: ServerResponse | undefined): void {
  slots.take(ip);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    slots.release(ip);
  };
  const target = response ?? request;
  if (response?.closed ?? request.destroyed) return release();
  target.once('close', release);
}

/**
 * 32-hex request ids cut from a pooled buffer of crypto-random bytes: one `randomFillSync` per 256
 * ids instead of one `randomBytes` call per request (it showed in the relay's CPU profile).
 */
class RandomHexIds {
  private readonly pool = Buffer.alloc(16 * 256);
  private offset = this.pool.length;

  next(): string {
    if (this.offset === this.pool.length) {
      randomFillSync(this.pool);
      this.offset = 0;
    }
    const id = this.pool.toString('hex', this.offset, this.offset + 16);
    this.offset += 16;
    return id;
  }
}
