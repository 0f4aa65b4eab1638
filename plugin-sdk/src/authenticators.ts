/**
 * Plugin-supplied authentication. A plugin whose callers hold credentials of its own (the hub's seat
 * keys, a relay's token) builds an `Authenticator` in `setup` and names it as a route's `auth`: the
 * kernel reads the credential where the security scheme says, refuses a throttled source, runs
 * `authenticate` before the body is validated, counts a bad credential as a failed sign-in and
 * answers the refusal in the mount's error shape. The handler gets the authenticator's principal,
 * typed and never null; the OpenAPI document lists the scheme on the route.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { unauthorized, type HttpError } from './errors.js';

/** Where callers send the credential, as OpenAPI 3.1 names it (`components.securitySchemes`). */
export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'header' | 'query'; name: string; description?: string };

export interface Authenticator<P> {
  /**
   * The scheme's name in the OpenAPI document (`hubSeatKey`). Unique across the loaded plugins: two
   * authenticators may share a name only with the same scheme (two checks of one kind of key).
   */
  readonly name: string;
  /** Where the kernel reads the credential, and what `/docs` offers to send. */
  readonly scheme: SecurityScheme;
  /**
   * Who the credential stands for. `credential` is null when the request carries none (the source is
   * then not throttled). Return null to refuse with 401: the `missing` sentence without a credential,
   * else the `invalid` one, and the bad credential counts as a failed sign-in against the source
   * (429 once its burst is used). Throw an `HttpError` to refuse otherwise, uncounted: a known but
   * blocked caller (403), a credential of another kind (401 in your own words).
   *
   * `response` is the answer being made to `request` (absent on a WebSocket upgrade): an
   * authenticator that holds something for the request's lifetime (a concurrency slot) releases it
   * when `response` closes. The request's own `close` comes as soon as its body is read.
   */
  authenticate(credential: string | null, request: IncomingMessage, response?: ServerResponse): P | null | Promise<P | null>;
  /** The 401 sentences (defaults say where to send the credential). */
  readonly refusals?: { missing?: string; invalid?: string };
}

/** Declares an authenticator; the principal type is inferred from `authenticate`. */
export function defineAuthenticator<P>(authenticator: Authenticator<P>): Authenticator<P> {
  return Object.freeze({ ...authenticator });
}

/** The token of an `Authorization: Bearer <token>` header (scheme name in any case), or null. */
export function bearerCredential(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1]! : null;
}

/** The credential `scheme` says the request carries, or null. */
export function credentialOf(scheme: SecurityScheme, request: IncomingMessage): string | null {
  if (scheme.type === 'http') return bearerCredential(request.headers.authorization);
  if (scheme.in === 'header') {
    const value = request.headers[scheme.name.toLowerCase()];
    return (Array.isArray(value) ? value[0] : value)?.trim() || null;
  }
  return new URL(request.url ?? '/', 'http://host.invalid').searchParams.get(scheme.name) || null;
}

/**
 * Runs `authenticator` on `credential`: its principal, or the 401 in its words. `onInvalid` is
 * called before refusing a credential that is no one's (the kernel counts it there); a socket route
 * calls this too, so an upgrade and a route check one kind of key one way.
 */
export async function admit<P>(authenticator: Authenticator<P>, credential: string | null, request: IncomingMessage, onInvalid: () => void = () => {}, response?: ServerResponse): Promise<P> {
  const principal = await authenticator.authenticate(credential, request, response);
  if (principal !== null) return principal;
  if (credential === null) throw refusal(authenticator, 'missing');
  onInvalid();
  throw refusal(authenticator, 'invalid');
}

function refusal(authenticator: Authenticator<unknown>, kind: 'missing' | 'invalid'): HttpError {
  const { scheme, refusals } = authenticator;
  const bearer = scheme.type === 'http';
  const where = bearer ? 'the header Authorization: Bearer <key>' : `the ${scheme.in === 'header' ? 'header' : 'query parameter'} ${scheme.name}`;
  const sentence = kind === 'missing'
    ? refusals?.missing ?? `Send your key in ${where}.`
    : refusals?.invalid ?? `The key in ${where} is not valid (unknown or revoked).`;
  const challenge = bearer ? { 'www-authenticate': kind === 'missing' ? 'Bearer' : 'Bearer error="invalid_token"' } : undefined;
  return unauthorized(sentence, { code: kind === 'missing' ? 'missing_credential' : 'invalid_credential', ...(challenge ? { headers: challenge } : {}) });
}
