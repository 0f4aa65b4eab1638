/** The `core.auth` service: bearer tokens to principals, admin checks. */
import type Koa from 'koa';
import { forbidden, type AuthService, type Principal } from '@keel/plugin-sdk';
import { ADMIN_ROLE, type AccountStore } from './account-store.js';

export const PRINCIPAL_STATE_KEY = 'keelPrincipal';

export class TokenAuthService implements AuthService {
  constructor(private readonly store: AccountStore) {}

  async authenticate(bearerToken: string): Promise<Principal | null> {
    return this.store.principalFor(bearerToken);
  }

  principalOf(ctx: Koa.Context): Principal | null {
    return (ctx.state[PRINCIPAL_STATE_KEY] as Principal | undefined) ?? null;
  }

  isAdmin(principal: Principal | null): boolean {
    return principal?.roles.includes(ADMIN_ROLE) ?? false;
  }

  requireAdmin(principal: Principal | null): asserts principal is Principal {
    if (!this.isAdmin(principal)) throw forbidden('This action needs an admin principal; sign in with an admin token.');
  }
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerTokenOf(ctx: Koa.Context): string | null {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
