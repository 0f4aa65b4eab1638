/**
 * What a request no route took is answered: 405 with Allow when the path exists under another
 * method, 404 otherwise, except that an anonymous caller learns nothing about paths that need a
 * token. Without a valid token, anything a guarded mount prefix could cover (`guardUnmatched`; also
 * spelled with double slashes, dot segments or encoded slashes) and any method on a path whose routes
 * need a token (however spelled) answer 401 before 404 or 405. A prefix guarded by a plugin's
 * authenticator (`guardUnmatched: '<authenticator name>'`) asks for that authenticator's credential
 * instead, checked as on the plugin's routes (the longest guarded prefix covering the path decides).
 */
import path from 'node:path';
import type Router from '@koa/router';
import type Koa from 'koa';
import { methodNotAllowed, notFound, type Authenticator } from '@keel/plugin-sdk';
import type { TokenAuthService } from '../auth/auth-service.js';
import { missingCredential, pluginPrincipal } from './mount-routes.js';

/** A mount prefix whose unmatched paths need a credential: the kernel's token (`authenticator` null) or a plugin's. */
export interface GuardedPrefix {
  prefix: string;
  authenticator: Authenticator<unknown> | null;
}

/** The path as a lenient server or proxy might read it: decoded, slashes collapsed, dot segments resolved, lower case. */
export function looselyNormalizedPath(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    decoded = raw.replace(/%2f/gi, '/').replace(/%5c/gi, '\\');
  }
  return path.posix.normalize(decoded.replace(/\\/g, '/')).toLowerCase();
}

/**
 * The last middleware. `tokenPaths` are the registered paths (as the router holds them) of routes
 * that need a token; `guardedPrefixes` the mount prefixes whose unmatched paths need one.
 */
export function unmatchedRoutes(router: Router, auth: TokenAuthService, tokenPaths: ReadonlySet<string>, guardedPrefixes: ReadonlyArray<string | GuardedPrefix>): Koa.Middleware {
  // Longest first: a plugin's guard on `/v1/x` wins over a kernel guard on `/v1`.
  const guarded = guardedPrefixes
    .map((g) => (typeof g === 'string' ? { prefix: g, authenticator: null } : g))
    .map((g) => ({ prefix: looselyNormalizedPath(g.prefix).replace(/\/+$/, ''), authenticator: g.authenticator }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const guardOf = (normalized: string) => guarded.find(({ prefix }) => prefix === '' || normalized === prefix || normalized.startsWith(`${prefix}/`));
  return async (ctx) => {
    const layers = router.match(ctx.path, '').path;
    const allowed = [...new Set(layers.flatMap((layer) => layer.methods))];
    const normalized = looselyNormalizedPath(ctx.path);
    const tokenRoute = (layer: (typeof layers)[number]) => typeof layer.path === 'string' && tokenPaths.has(layer.path);
    const guard = guardOf(normalized);
    if (guard?.authenticator) await pluginPrincipal(guard.authenticator, ctx, auth);
    // `//v1/models` is no route, but a lenient proxy would send it to one: answer as that route would.
    const needsToken = (guard !== undefined && !guard.authenticator) || layers.some(tokenRoute) || router.match(normalized, '').path.some(tokenRoute);
    if (needsToken) {
      const credential = auth.credentialOf(ctx);
      if (!credential) throw missingCredential();
      if (!(await auth.authenticateRequest(ctx, credential))) throw auth.invalidCredential(credential);
    }
    if (allowed.length) {
      throw methodNotAllowed(`${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(', ')}.`, { code: 'method_not_allowed', headers: { allow: allowed.join(', ') } });
    }
    throw notFound(`No route ${ctx.method} ${ctx.path}.`, { code: 'not_found' });
  };
}
