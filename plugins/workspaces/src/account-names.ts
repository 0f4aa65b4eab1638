/**
 * The `{account}` of the policy routes (seed §4.5): `me`, an account name, `tenant:name`, or an
 * entity slug (Keel has no entities of its own: a slug names the account of the same name).
 * `self` is gone (410 naming `me`); an unknown account is 404. Accounts are shown as `tenant:name`.
 */
import { badRequest, forbidden, gone, notFound, type AuthService, type Principal } from '@keel/plugin-sdk';

export interface NamedAccount {
  /** The account id (`principal.account`): the key of its layers. */
  account: string;
  /** `tenant:name`, as answers show it. */
  shown: string;
  admin: boolean;
}

export function shownAccount(p: Pick<Principal, 'account' | 'tenant'>): string {
  return `${p.tenant}:${p.account}`;
}

/**
 * The account `name` stands for. `what` names what the route shows: a non-admin naming another
 * account is refused (403) before any lookup, so it cannot learn which accounts exist.
 */
export function resolveAccount(auth: AuthService, caller: Principal, name: string, route: string, what: string): NamedAccount {
  if (name === 'self') throw gone(`${route}/self no longer exists: use ${route}/me for your own account.`);
  if (name === 'me') return { account: caller.account, shown: shownAccount(caller), admin: auth.isAdmin(caller) };
  const colon = name.indexOf(':');
  const tenant = colon >= 0 ? name.slice(0, colon) : null;
  const user = colon >= 0 ? name.slice(colon + 1) : name;
  if (!user || tenant === '') throw badRequest(`'${name.slice(0, 200)}' is not an account: use the account name or tenant:name.`);
  if (!auth.isAdmin(caller) && (user !== caller.account || (tenant !== null && tenant !== caller.tenant))) {
    throw forbidden(`Only an admin may see or change ${what} of another account; use 'me' for your own.`);
  }
  const found = auth.accountOf(user);
  if (!found || (tenant !== null && found.tenant !== tenant)) throw notFound(`No account '${name.slice(0, 200)}' on this gateway.`);
  return { account: found.account, shown: shownAccount(found), admin: auth.isAdmin(found) };
}
