/** The `core.auth` service: bearer tokens to principals, admin checks. */
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { forbidden, type AuthService, type Principal } from '@keel/plugin-sdk';
import { ADMIN_ROLE, type AccountStore } from './account-store.js';
import type { AuthFailureCounter } from './auth-failures.js';

export const PRINCIPAL_STATE_KEY = 'keelPrincipal';

export class TokenAuthService implements AuthService {
  constructor(private readonly store: AccountStore, private readonly failures: AuthFailureCounter) {}

  async authenticate(bearerToken: string): Promise<Principal | null> {
    return this.store.principalFor(bearerToken);
  }

  /** A request's bearer token checked: its source refused while throttled, a bad token counted. */
  async authenticateRequest(ctx: Koa.Context, bearerToken: string): Promise<Principal | null> {
    this.refuseThrottledSource(ctx);
    const principal = await this.authenticate(bearerToken);
    if (!principal) this.recordFailedAuthentication(ctx, 'bearer token');
    return principal;
  }

  refuseThrottledSource(request: Koa.Context | IncomingMessage): void {
    this.failures.refuseIfThrottled(sourceOf(request));
  }

  recordFailedAuthentication(request: Koa.Context | IncomingMessage, what: string): void {
    this.failures.record(sourceOf(request), what);
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
