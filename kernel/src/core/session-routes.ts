/**
 * Browser sign-in (`/api/gateway/session/*`): a token or a one-time code buys an HttpOnly,
 * SameSite=Strict session cookie, an alternative to the bearer header on every route. A wrong token
 * or code counts as a failed sign-in of the source address (`server.authFailures`), exactly like a
 * wrong bearer token.
 */
import type Koa from 'koa';
import { defineSchema, forbidden, reply, route, unauthorized, type Principal } from '@keel/plugin-sdk';
import { hashToken } from '../auth/account-store.js';
import { AUTH_VIA_STATE_KEY, bearerTokenOf, SESSION_STATE_KEY, type SignedInSession } from '../auth/auth-service.js';
import { csrfTokenFor, type BrowserSessionRecord } from '../auth/browser-sessions.js';
import { clearedSessionCookie, cookieIsSecure, sessionCookie, sessionCookieOf } from '../auth/session-cookie.js';
import type { CoreContext } from './core-context.js';

/** Tokens are 49 characters; an env admin token may be longer, never this long. */
const SECRET_MAX_LENGTH = 1024;
/** A sign-in body is one short secret: a bigger one is refused before it is read whole. */
const SIGNIN_BODY_LIMIT = 8 * 1024;

const loginBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', minLength: 1, maxLength: SECRET_MAX_LENGTH, description: 'A Keel bearer token of the account.' } },
  examples: [{ token: 'keel_...' }],
});

const claimBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['code'],
  properties: { code: { type: 'string', minLength: 1, maxLength: SECRET_MAX_LENGTH, description: 'A one-time sign-in code from POST /session/codes.' } },
});

const logoutBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { everywhere: { type: 'boolean', default: false, description: 'Also end every other browser session of the account.' } },
});

const signedInSchema = defineSchema({
  type: 'object',
  required: ['account', 'tenant', 'roles', 'is_admin', 'via', 'expires_at', 'csrf_token', 'csrf_header'],
  properties: {
    account: { type: 'string' },
    tenant: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' } },
    is_admin: { type: 'boolean' },
    token_id: { type: ['string', 'null'], description: 'The token the session stands on: revoking it ends the session.' },
    via: { enum: ['login', 'claim'] },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
    csrf_token: { type: 'string', description: 'Send it as the X-Keel-CSRF header on every POST, PUT, PATCH and DELETE the cookie signs in.' },
    csrf_header: { type: 'string' },
  },
});

const NO_STORE = { 'cache-control': 'no-store' };

export function sessionRoutes(core: CoreContext) {
  const { accounts, auth, signin } = core;
  const { sessions, codes, activity } = signin;

  /** A cookie sign-in must not be started from another site's page (login CSRF); the origin policy already refused foreign Origins. */
  const refuseCrossSite = (ctx: Koa.Context) => {
    if (ctx.get('sec-fetch-site') === 'cross-site') {
      throw forbidden('Sign-in from another site\'s page is refused; open Keel\'s own page to sign in.', { code: 'cross_site_request' });
    }
  };

  const signedIn = (principal: Principal, record: BrowserSessionRecord, csrf: string) => ({
    account: principal.account,
    tenant: principal.tenant,
    roles: principal.roles,
    is_admin: auth.isAdmin(principal),
    token_id: record.token_id,
    via: record.via,
    created_at: record.created_at,
    expires_at: record.expires_at,
    csrf_token: csrf,
    csrf_header: 'X-Keel-CSRF',
  });

  /** Starts a session (ending the one the browser held: a sign-in never keeps an old id) and answers with its cookie. */
  const startSession = async (ctx: Koa.Context, principal: Principal, tokenHash: string, via: BrowserSessionRecord['via']) => {
    const previous = sessionCookieOf(ctx);
    if (previous?.id) await sessions.end(previous.id);
    const created = await sessions.create({ account: principal.account, tokenId: principal.tokenId, tokenHash, via });
    await activity.record(principal.account, 'sign_in', { via, source: auth.sourceOf(ctx), token_id: principal.tokenId });
    const secure = cookieIsSecure(ctx, signin.settings.signin.secureCookie);
    return reply(200, signedIn(principal, created.record, created.csrf), { ...NO_STORE, 'set-cookie': sessionCookie(created.id, signin.settings.signin.sessionTtlMs, secure) });
  };

  return [
    route({
      method: 'POST',
      path: '/session/login',
      mount: 'gateway',
      auth: 'none',
      tags: ['sign-in'],
      summary: 'Sign a browser in with a token: answers an HttpOnly session cookie and the CSRF token its unsafe requests send',
      body: loginBody,
      bodyLimitBytes: SIGNIN_BODY_LIMIT,
      responses: { 200: { schema: signedInSchema } },
      handler: async ({ body, koa }) => {
        auth.refuseThrottledSource(koa);
        refuseCrossSite(koa);
        const principal = accounts.principalFor(body.token);
        if (!principal) {
          auth.recordFailedAuthentication(koa, 'sign-in token');
          throw unauthorized('The token is not valid (unknown or revoked, or its account is suspended); sign in with a token an admin issued to you.', { code: 'invalid_token' });
        }
        return startSession(koa, principal, hashToken(body.token), 'login');
      },
    }),
    route({
      method: 'POST',
      path: '/session/codes',
      mount: 'gateway',
      tags: ['sign-in'],
      summary: 'Mint a one-time sign-in code a browser claims for a session (bearer token only)',
      responses: {
        201: { schema: defineSchema({ type: 'object', required: ['code', 'expires_at', 'claim_path'], properties: { code: { type: 'string' }, expires_at: { type: 'string' }, claim_path: { type: 'string' } } }) },
      },
      handler: async ({ principal, koa }) => {
        const token = koa.state[AUTH_VIA_STATE_KEY] === 'bearer' ? bearerTokenOf(koa) : null;
        if (!token) throw forbidden('Sign-in codes are minted with a bearer token (Authorization: Bearer), not from a browser session.', { code: 'bearer_required' });
        const { code, record } = await codes.mint({ account: principal.account, tokenId: principal.tokenId, tokenHash: hashToken(token) });
        await activity.record(principal.account, 'signin_code_issued', { via: 'bearer', source: auth.sourceOf(koa), token_id: principal.tokenId });
        return reply(201, { code, expires_at: record.expires_at, claim_path: '/api/gateway/session/claim' }, NO_STORE);
      },
    }),
    route({
      method: 'POST',
      path: '/session/claim',
      mount: 'gateway',
      auth: 'none',
      tags: ['sign-in'],
      summary: 'Claim a one-time sign-in code for a browser session cookie (the code works once)',
      body: claimBody,
      bodyLimitBytes: SIGNIN_BODY_LIMIT,
      responses: { 200: { schema: signedInSchema } },
      handler: async ({ body, koa }) => {
        auth.refuseThrottledSource(koa);
        refuseCrossSite(koa);
        const record = await codes.take(body.code);
        const principal = record ? accounts.principalForHash(record.token_hash) : null;
        if (!record || !principal || principal.account !== record.account) {
          auth.recordFailedAuthentication(koa, 'sign-in code');
          throw unauthorized('The sign-in code is unknown, already used or expired, or its token was revoked; ask for a new one.', { code: 'invalid_code' });
        }
        return startSession(koa, principal, record.token_hash, 'claim');
      },
    }),
    route({
      method: 'POST',
      path: '/session/logout',
      mount: 'gateway',
      auth: 'public',
      tags: ['sign-in'],
      summary: 'End this browser session (and with everywhere: true every session of the account); the cookie is cleared',
      body: logoutBody,
      bodyLimitBytes: SIGNIN_BODY_LIMIT,
      responses: { 200: { schema: defineSchema({ type: 'object', required: ['signed_out', 'sessions_ended'], properties: { signed_out: { type: 'boolean' }, sessions_ended: { type: 'integer' } } }) } },
      handler: async ({ body, principal, koa }) => {
        const session = koa.state[SESSION_STATE_KEY] as SignedInSession | undefined;
        let ended = session && (await sessions.end(session.id)) ? 1 : 0;
        if (principal && body.everywhere) {
          ended += await sessions.endAll(principal.account);
          // An unclaimed sign-in code is a session not yet made: everywhere includes it.
          await codes.endAll(principal.account);
        }
        if (principal && ended) await activity.record(principal.account, 'sign_out', { via: String(koa.state[AUTH_VIA_STATE_KEY]), source: auth.sourceOf(koa), token_id: principal.tokenId });
        const cookie = sessionCookieOf(koa);
        const headers: Record<string, string> = cookie ? { 'set-cookie': clearedSessionCookie(cookie.name) } : {};
        return reply(200, { signed_out: ended > 0, sessions_ended: ended }, headers);
      },
    }),
    route({
      method: 'GET',
      path: '/session',
      mount: 'gateway',
      tags: ['sign-in'],
      summary: 'This browser session again, with its CSRF token (for a page that reloaded)',
      responses: { 200: { schema: signedInSchema } },
      handler: ({ principal, koa }) => {
        const session = koa.state[SESSION_STATE_KEY] as SignedInSession | undefined;
        if (!session) throw forbidden('This request is signed in by a bearer token, not a browser session; sign in with POST /api/gateway/session/login.', { code: 'no_browser_session' });
        return reply(200, signedIn(principal, session.record, csrfTokenFor(session.id)), NO_STORE);
      },
    }),
  ];
}
