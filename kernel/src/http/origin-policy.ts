/**
 * The browser origin allowlist. Requests without an Origin header (curl, servers) pass; a browser
 * request must come from the server's own origin or one listed in `server.origins`. Allowed
 * origins get CORS headers and preflight answers; others get a 403 naming the setting.
 */
import type Koa from 'koa';
import { forbidden } from '@keel/plugin-sdk';

const ALLOW_HEADERS = 'authorization, content-type, last-event-id, x-request-id, x-hub-client, x-agora-client';
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

export function originPolicy(allowed: string[]): Koa.Middleware {
  const any = allowed.includes('*');
  const list = new Set(allowed.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  // Not an async function: most requests only pass through, and a throw still reaches Koa as a rejection.
  return (ctx, next) => {
    const origin = ctx.get('origin');
    if (!origin) return next();
    const normalized = origin.toLowerCase();
    const self = `${ctx.protocol}://${ctx.host}`.toLowerCase();
    if (!(any || normalized === self || list.has(normalized))) {
      throw forbidden(`Origin ${origin} is not allowed. Add it to server.origins in the Keel config to let browsers on it call this server.`, {
        code: 'origin_not_allowed',
      });
    }
    ctx.set('access-control-allow-origin', origin);
    ctx.vary('origin');
    ctx.set('access-control-expose-headers', 'x-request-id');
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('access-control-allow-methods', ALLOW_METHODS);
      ctx.set('access-control-allow-headers', ALLOW_HEADERS);
      ctx.set('access-control-max-age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}
