/**
 * The sign-in cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page or link
 * sends it), Path=/, Secure when the connection is TLS (or `server.signin.secureCookie` says so),
 * and then named with the `__Host-` prefix so a sibling subdomain cannot plant one.
 */
import type Koa from 'koa';
import type { SigninConfig } from '../config/kernel-config.js';

export const SESSION_COOKIE = 'keel_session';
export const SECURE_SESSION_COOKIE = '__Host-keel_session';
/** The header unsafe requests signed in by the cookie carry, with the session's CSRF token. */
export const CSRF_HEADER = 'x-keel-csrf';

/** Session ids are 43 base64url characters; anything else is not one of ours and is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function cookieIsSecure(ctx: Koa.Context, mode: SigninConfig['secureCookie']): boolean {
  return mode === 'always' || (mode === 'auto' && ctx.secure);
}

/** The session id the request's cookie carries (the `__Host-` one first), or null. */
export function sessionCookieOf(ctx: Koa.Context): { id: string; name: string } | null {
  if (!ctx.get('cookie')) return null;
  for (const name of [SECURE_SESSION_COOKIE, SESSION_COOKIE]) {
    const value = ctx.cookies.get(name);
    if (value) return { id: SESSION_ID.test(value) ? value : '', name };
  }
  return null;
}

/** The Set-Cookie value that stores `id` for `maxAgeMs`. */
export function sessionCookie(id: string, maxAgeMs: number, secure: boolean): string {
  const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  return `${name}=${id}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that makes the browser forget the cookie named `name`. */
export function clearedSessionCookie(name: string): string {
  const secure = name === SECURE_SESSION_COOKIE;
  return `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
