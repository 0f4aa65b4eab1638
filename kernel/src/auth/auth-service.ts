/**
 * The `core.auth` service: bearer tokens and browser session cookies to principals, admin checks.
 * A request is signed in by its `Authorization: Bearer` header, or, when it has none, by the
 * session cookie (`auth/session-cookie.ts`); a cookie-signed request must also pass the CSRF and
 * origin rules of `refuseUnsafeSessionUse`.
 */
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { forbidden, unauthorized, type AuthService, type HttpError, type Principal } from '@keel/plugin-sdk';
import { ADMIN_ROLE, type AccountStore } from './account-store.js';
import type { AccountActivity } from './account-activity.js';
import type { AccountPreferences } from './account-preferences.js';
import type { AuthFailureCounter } from './auth-failures.js';
import { csrfTokenFor, secretsMatch, type BrowserSessionRecord, type BrowserSessions } from './browser-sessions.js';
import { clearedSessionCookie, CSRF_HEADER, sessionCookieOf } from './session-cookie.js';

export const PRINCIPAL_STATE_KEY = 'keelPrincipal';
/** How the request was signed in: `bearer` or `session`. */
export const AUTH_VIA_STATE_KEY = 'keelAuthVia';
/** The browser session of a cookie-signed request: `{ id, record }` (`SignedInSession`). */
export const SESSION_STATE_KEY = 'keelBrowserSession';

export interface SignedInSession {
  /** The cookie's value (never logged or sent back). */
  id: string;
  record: BrowserSessionRecord;
}

export type RequestCredential = { kind: 'bearer'; token: string } | { kind: 'session'; id: string; cookie: string };

/** What cookie sign-in needs besides the account store: the sessions, the activity log, and which origins may send credentials. */
export interface SessionAuthDeps {
  sessions: BrowserSessions;
  activity: AccountActivity;
  /** The accounts' stored client preferences (plugins read them through `preferencesOf`). */
  preferences?: Pick<AccountPreferences, 'get'>;
  /** True when a request with this Origin may be signed in by the cookie (the server's own origin, or one listed by name). */
  trustsCredentialsFrom(origin: string, req: IncomingMessage): boolean;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class TokenAuthService implements AuthService {
  constructor(private readonly store: AccountStore, private readonly failures: AuthFailureCounter, private readonly signin: SessionAuthDeps | null = null) {}

  async authenticate(bearerToken: string): Promise<Principal | null> {
    return this.store.principalFor(bearerToken);
  }

  /** The credential a request carries: its bearer header first; without an Authorization header, its session cookie. */
  credentialOf(ctx: Koa.Context): RequestCredential | null {
    const token = bearerTokenOf(ctx);
    if (token) return { kind: 'bearer', token };
    if (!this.signin || ctx.get('authorization')) return null;
    const cookie = sessionCookieOf(ctx);
    return cookie ? { kind: 'session', id: cookie.id, cookie: cookie.name } : null;
  }

  /** A request's credential checked: its source refused while throttled, a bad one counted, a good one noted in the account's activity. */
  async authenticateRequest(ctx: Koa.Context, credential: RequestCredential): Promise<Principal | null> {
    this.refuseThrottledSource(ctx);
    let principal: Principal | null;
    if (credential.kind === 'bearer') {
      principal = await this.authenticate(credential.token);
    } else {
      const session = this.signin?.sessions.find(credential.id) ?? null;
      principal = session ? this.sessionPrincipal(session) : null;
      if (principal && session) ctx.state[SESSION_STATE_KEY] = { id: credential.id, record: session } satisfies SignedInSession;
    }
    if (!principal) {
      this.recordFailedAuthentication(ctx, credential.kind === 'bearer' ? 'bearer token' : 'session cookie');
      return null;
    }
    ctx.state[AUTH_VIA_STATE_KEY] = credential.kind;
    this.signin?.activity.noteRequest(principal.account, credential.kind, sourceOf(ctx));
    return principal;
  }

  /** The principal a stored session stands for, while its token and account are still valid. */
  sessionPrincipal(session: BrowserSessionRecord): Principal | null {
    const principal = this.store.principalForHash(session.token_hash);
    return principal && principal.account === session.account ? principal : null;
  }

  /** The 401 for a credential that signs no one in; a dead session cookie is also cleared from the browser. */
  invalidCredential(credential: RequestCredential): HttpError {
    if (credential.kind === 'session') {
      return unauthorized('Your browser session has ended (signed out, expired, or its token or account was revoked); sign in again.', {
        code: 'session_ended',
        headers: { 'set-cookie': clearedSessionCookie(credential.cookie) },
      });
    }
    return unauthorized('The bearer token is not valid (unknown or revoked).', { code: 'invalid_token', headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
  }

  /**
   * The rules a cookie-signed request passes, since a browser sends the cookie by itself: no request
   * another site's page made (Sec-Fetch-Site: cross-site, or an Origin that is not the server's own or
   * listed by name in server.origins), and no unsafe method without the session's CSRF token in the
   * X-Keel-CSRF header (a value only a page of an allowed origin could have read).
   */
  refuseUnsafeSessionUse(ctx: Koa.Context): void {
    const session = ctx.state[SESSION_STATE_KEY] as SignedInSession | undefined;
    if (!session || ctx.state[AUTH_VIA_STATE_KEY] !== 'session') return;
    if (ctx.get('sec-fetch-site') === 'cross-site') {
      throw forbidden('This request came from another site\'s page, which may not use your browser sign-in; open Keel\'s own page, or send a bearer token.', { code: 'cross_site_request' });
    }
    const origin = ctx.get('origin');
    if (origin && !this.signin?.trustsCredentialsFrom(origin, ctx.req)) {
      throw forbidden(`Origin ${origin} may not use the browser sign-in cookie; list it by name in server.origins (a wildcard does not count), or send a bearer token.`, { code: 'origin_not_allowed' });
    }
    if (SAFE_METHODS.has(ctx.method)) return;
    const csrf = ctx.get(CSRF_HEADER);
    if (!csrf) {
      throw forbidden(`A ${ctx.method} signed in by the browser cookie needs the header X-Keel-CSRF with the csrf_token the sign-in answered (GET /api/gateway/session shows it again).`, { code: 'csrf_token_missing' });
    }
    if (!secretsMatch(csrf, csrfTokenFor(session.id))) {
      throw forbidden('The X-Keel-CSRF header does not match this browser session\'s csrf_token; read it again from GET /api/gateway/session.', { code: 'csrf_token_mismatch' });
    }
  }

  refuseThrottledSource(request: Koa.Context | IncomingMessage): void {
    this.failures.refuseIfThrottled(sourceOf(request));
  }

  recordFailedAuthentication(request: Koa.Context | IncomingMessage, what: string): void {
    this.failures.record(sourceOf(request), what);
  }

  /** The client address of a request (for activity entries). */
  sourceOf(request: Koa.Context | IncomingMessage): string {
    return sourceOf(request);
  }

  principalOf(ctx: Koa.Context): Principal | null {
    return (ctx.state[PRINCIPAL_STATE_KEY] as Principal | undefined) ?? null;
  }

  isAdmin(principal: Principal | null): boolean {
    return principal?.roles.includes(ADMIN_ROLE) ?? false;
  }

  accountOf(account: string): Principal | null {
    const record = this.store.get(account);
    return record && !record.disabled ? { account: record.account, tenant: record.tenant, roles: [...record.roles], tokenId: null } : null;
  }

  preferencesOf(account: string): Record<string, unknown> {
    return this.signin?.preferences ? structuredClone(this.signin.preferences.get(account).preferences) : {};
  }

  requireAdmin(principal: Principal | null): asserts principal is Principal {
    if (!this.isAdmin(principal)) throw forbidden('This action needs an admin principal; sign in with an admin token.');
  }
}

/** The address a request came from (the socket's peer: the kernel does not trust X-Forwarded-For). */
function sourceOf(request: Koa.Context | IncomingMessage): string {
  const socket = 'req' in request ? request.req.socket : request.socket;
  return socket.remoteAddress || 'unknown';
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(ctx: Koa.Context): string | null {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
