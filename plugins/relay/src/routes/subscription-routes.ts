/**
 * `GET /v1/subscription/status` and its alias `GET /v1/account/rate_limits` (reference §1.5): the
 * usage windows of a hosted account (label by duration, percentages, reset times), through the
 * pool's usage cache, so polling costs at most one upstream call per account per cache period.
 * `provider=cli` answers the local client's usage when that part provides it. A monitoring route.
 */
import { defineSchema, HttpError, notFound, route, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import { RelayFailure } from '../contracts.js';
import { failureReply } from '../errors.js';
import type { RelayAccountPool } from '../pool/account-pool.js';

/** The local client's usage status (the cli part supplies it); a `RelayFailure` is answered with its status. */
export type CliUsageStatus = () => Promise<Record<string, unknown>>;

export interface SubscriptionRoutesOptions {
  /** Null when the hosted runtime is disabled. */
  pool: RelayAccountPool | null;
  cliEnabled: boolean;
  cliUsage?: CliUsageStatus;
  auth: RouteAuth;
}

const statusQuery = defineSchema({
  type: 'object',
  properties: {
    provider: { type: 'string', maxLength: 100 },
    account: { type: 'string', minLength: 1, maxLength: 320 },
    all_accounts: { type: 'boolean' },
    raw: { type: 'boolean' },
  },
});

export function subscriptionRoutes(options: SubscriptionRoutesOptions): AnyRoute[] {
  const paths = [
    ['/subscription/status', 'Usage windows of a hosted account (or the local client): label, percentages, reset times'],
    ['/account/rate_limits', 'Alias of GET /v1/subscription/status'],
  ] as const;
  return paths.map(([path, summary]) => route({
    method: 'GET',
    path,
    summary,
    tags: ['relay'],
    auth: options.auth,
    query: statusQuery,
    async handler({ query }) {
      const provider = query.provider ?? 'hosted';
      if (provider === 'cli') return cliStatus(options);
      if (provider !== 'hosted') throw new HttpError(501, `Unknown provider "${provider.slice(0, 100)}": use provider=hosted (the default) or provider=cli.`, { code: 'unsupported_error', field: 'query.provider' });
      const pool = options.pool;
      if (!pool) throw new HttpError(501, 'The hosted runtime is disabled (relay.hosted.enabled is false): enable it to see account usage.', { code: 'unsupported_error' });
      if (pool.accounts.length === 0) throw new HttpError(501, 'No hosted account is configured: add one to relay.hosted.accounts.', { code: 'unsupported_error' });
      if (query.all_accounts && pool.accounts.length > 1 && query.account === undefined) {
        const entries = await Promise.all(pool.accounts.map(async (account) => {
          const answer = await pool.subscriptionOf(account, query.raw === true);
          return 'status' in answer ? { slug: account.slug, email: account.email, status: answer.status } : { slug: account.slug, email: account.email, error: answer.error };
        }));
        return { object: 'subscription_status_list', accounts: entries };
      }
      const account = pickAccount(pool, query.account);
      const answer = await pool.subscriptionOf(account, query.raw === true);
      if ('status' in answer) return answer.status;
      if (answer.statusCode === null) throw notFound(`Account ${account.slug} has no usage report: set usagePath on it in relay.hosted.accounts.`, { code: 'usage_not_reported' });
      throw new HttpError(502, `The usage report of account ${account.slug} could not be read (${answer.error}). Requests are unaffected.`, { code: 'usage_report_failed' });
    },
  }) as AnyRoute);
}

function pickAccount(pool: RelayAccountPool, id: string | undefined) {
  if (id === undefined) return pool.accounts[0]!;
  const found = pool.resolveAccount(id);
  if ('account' in found) return found.account;
  if (found.error === 'ambiguous') {
    throw new HttpError(400, `"${id.slice(0, 100)}" matches several accounts (${found.matches.join(', ')}): give more of the email or the slug.`, { code: 'ambiguous_account', field: 'query.account' });
  }
  throw notFound(`Unknown account "${id.slice(0, 100)}": the accounts are ${found.matches.join(', ')}.`, { code: 'unknown_account', field: 'query.account' });
}

async function cliStatus(options: SubscriptionRoutesOptions): Promise<unknown> {
  if (!options.cliEnabled) throw new HttpError(501, 'The local command-line client is disabled (relay.cli.enabled is false): enable it to see its usage.', { code: 'unsupported_error' });
  if (!options.cliUsage) throw new HttpError(501, 'The local command-line client reports no usage windows in this build.', { code: 'unsupported_error' });
  try {
    return await options.cliUsage();
  } catch (err) {
    if (err instanceof RelayFailure) return failureReply(err);
    throw err;
  }
}
