/**
 * The browser origin allowlist, for HTTP requests and WebSocket upgrades alike. Requests without an
 * Origin header (curl, servers) pass; a browser request must come from the server's own origin or
 * one listed in `server.origins`. Allowed origins get CORS headers and preflight answers; others get
 * a 403 naming the setting.
 *
 * The server's own origin is the address the connection was accepted on (the listen address as
 * bound, the interface reached when bound to all of them), never the request's `Host` header: a
 * page on a name the attacker controls (DNS rebinding) sends a matching Host and Origin, and would
 * otherwise pass. On a loopback address, `localhost`, `127.0.0.1` and `[::1]` with the same port are
 * all the server's own. Names (a LAN host name, a proxy's public URL) go in `server.origins`.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type Koa from 'koa';
import { forbidden, type HttpError } from '@keel/plugin-sdk';

/** The request headers the kernel's routes read; plugins add theirs (`PluginDefinition.headers`). */
const KERNEL_HEADERS = ['authorization', 'content-type', 'last-event-id', 'x-request-id', 'x-keel-csrf'];
const ALLOW_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export class OriginPolicy {
  private readonly any: boolean;
  private readonly listed: Set<string>;
  private allowHeaders = KERNEL_HEADERS.join(', ');

  constructor(allowed: string[]) {
    this.any = allowed.includes('*');
    this.listed = new Set(allowed.map(normalize));
  }

  /** Adds the request headers the loaded plugins accept to what a preflight allows. */
  acceptHeaders(names: string[]): void {
    this.allowHeaders = [...new Set([...KERNEL_HEADERS, ...names.map((n) => n.toLowerCase())])].join(', ');
  }

  /** Null when a request with this Origin header, accepted on `req`'s connection, may proceed; else the 403. */
  refusal(origin: string | undefined, req: IncomingMessage): HttpError | null {
    if (!origin || this.any) return null;
    const normalized = normalize(origin);
    if (this.listed.has(normalized) || ownOrigins(req).includes(normalized)) return null;
    return forbidden(`Origin ${origin} is not allowed. Add it to server.origins in the Keel config to let browsers on it call this server.`, {
      code: 'origin_not_allowed',
    });
  }

  /**
   * True when a browser on `origin` may be signed in by the session cookie: the server's own origin,
   * or one listed by name in `server.origins`. A wildcard lets any page call with a token, never with
   * the cookie.
   */
  trustsCredentialsFrom(origin: string, req: IncomingMessage): boolean {
    const normalized = normalize(origin);
    return this.listed.has(normalized) || ownOrigins(req).includes(normalized);
  }

  /** Koa middleware: refuses foreign origins, answers preflights, adds CORS headers for allowed ones. */
  middleware(): Koa.Middleware {
    // Not an async function: most requests only pass through, and a throw still reaches Koa as a rejection.
    return (ctx, next) => {
      const origin = ctx.get('origin');
      if (!origin) return next();
      const refused = this.refusal(origin, ctx.req);
      if (refused) throw refused;
      ctx.set('access-control-allow-origin', origin);
      ctx.vary('origin');
      ctx.set('access-control-expose-headers', 'x-request-id');
      // Only an origin listed by name may send the sign-in cookie along (a page of Keel's own origin needs no CORS).
      if (this.listed.has(normalize(origin))) ctx.set('access-control-allow-credentials', 'true');
      if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
        ctx.set('access-control-allow-methods', ALLOW_METHODS);
        ctx.set('access-control-allow-headers', this.allowHeaders);
        ctx.set('access-control-max-age', '600');
        ctx.status = 204;
        return;
      }
      return next();
    };
  }
}

function normalize(origin: string): string {
  return origin.replace(/\/+$/, '').toLowerCase();
}

/** The origins a browser uses to reach the server on the address this connection was accepted on. */
function ownOrigins(req: IncomingMessage): string[] {
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) return [];
  const address = localAddress.replace(/^::ffff:/, '');
  const hosts = isLoopback(address) ? LOOPBACK_NAMES : [isIP(address) === 6 ? `[${address}]` : address];
  return hosts.flatMap((host) => localPort === 80 ? [`http://${host}`, `http://${host}:80`] : [`http://${host}:${localPort}`]);
}

function isLoopback(address: string): boolean {
  return address === '::1' || address.startsWith('127.');
}
