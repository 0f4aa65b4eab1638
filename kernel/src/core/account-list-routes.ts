/**
 * The accounts list and activity: `/admin/accounts` (admin: every account, suspend or restore one,
 * read its activity), `/me/accounts` (the accounts the caller may look at: itself, or all for an
 * admin) and `/me/activity`. Another account is 404 to a non-admin, whether it exists or not.
 */
import { conflict, defineSchema, notFound, route, type Principal } from '@keel/plugin-sdk';
import { ADMIN_ACCOUNT } from '../auth/bootstrap-admin.js';
import type { AccountRecord } from '../auth/account-store.js';
import type { CoreContext } from './core-context.js';

export const ACCOUNT_NAME = '^[a-z0-9][a-z0-9._-]{0,63}$';
const ACTIVITY_PAGE_MAX = 1000;

const accountParams = defineSchema({
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', pattern: ACCOUNT_NAME } },
});

const activityQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: ACTIVITY_PAGE_MAX, default: 100 },
    before: { type: 'string', minLength: 1, maxLength: 200, description: 'next_cursor of the previous page.' },
  },
});

const activeBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['active'],
  properties: { active: { type: 'boolean', description: 'false suspends the account (its tokens and sessions are refused, its sessions end); true restores it.' } },
  examples: [{ active: false }],
});

const accountRowSchema = {
  type: 'object',
  required: ['account', 'tenant', 'roles', 'active', 'disabled', 'token_count', 'session_count', 'last_active_at'],
  properties: {
    account: { type: 'string' }, tenant: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } },
    display_name: { type: ['string', 'null'] }, created_at: { type: 'string' },
    active: { type: 'boolean' }, disabled: { type: 'boolean' },
    token_count: { type: 'integer' }, session_count: { type: 'integer', description: 'Unexpired browser sessions.' },
    last_active_at: { type: ['string', 'null'], description: 'Newest entry of the activity log.' },
    is_me: { type: 'boolean' },
  },
} as const;

const activityEntrySchema = {
  type: 'object',
  required: ['id', 'at', 'kind'],
  properties: {
    id: { type: 'string' }, at: { type: 'string' },
    kind: { enum: ['sign_in', 'sign_out', 'sessions_ended', 'signin_code_issued', 'token_issued', 'token_revoked', 'account_suspended', 'account_restored', 'preferences_changed', 'requests'] },
    actor: { type: ['string', 'null'] }, via: { type: ['string', 'null'] }, source: { type: ['string', 'null'] }, token_id: { type: ['string', 'null'] },
    count: { type: ['integer', 'null'] }, first_at: { type: ['string', 'null'] }, last_at: { type: ['string', 'null'] },
  },
} as const;

const activityPageSchema = defineSchema({
  type: 'object',
  required: ['account', 'items', 'next_cursor'],
  properties: { account: { type: 'string' }, items: { type: 'array', items: activityEntrySchema }, next_cursor: { type: ['string', 'null'] } },
});
const accountListSchema = defineSchema({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: accountRowSchema } } });

export function accountListRoutes(core: CoreContext) {
  const { accounts, signin } = core;

  const row = (record: AccountRecord, me?: Principal) => ({
    ...record,
    active: !record.disabled,
    token_count: accounts.tokensOf(record.account).length,
    session_count: record.disabled ? 0 : signin.sessions.listOf(record.account).length,
    last_active_at: signin.activity.lastActiveAt(record.account),
    ...(me ? { is_me: record.account === me.account } : {}),
  });

  const existing = (account: string): AccountRecord => {
    const record = accounts.get(account);
    if (!record) throw notFound(`Account '${account}' does not exist.`, { code: 'account_not_found' });
    return record;
  };

  /** The account a non-admin may look at is its own; any other answers as if it did not exist. */
  const visible = (principal: Principal, account: string): AccountRecord => {
    if (account !== principal.account && !core.auth.isAdmin(principal)) {
      throw notFound(`Account '${account}' does not exist or is not yours.`, { code: 'account_not_found' });
    }
    return existing(account);
  };

  const activityPage = async (account: string, query: { limit?: number; before?: string }) => ({
    account,
    ...(await signin.activity.page(account, { limit: query.limit ?? 100, before: query.before })),
  });

  return [
    route({
      method: 'GET',
      path: '/admin/accounts',
      mount: 'gateway',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Every account with its state, token and session counts and last activity',
      responses: { 200: { schema: accountListSchema } },
      handler: ({ principal }) => ({ items: accounts.list().map((r) => row(r, principal)) }),
    }),
    route({
      method: 'PUT',
      path: '/admin/accounts/:account/active',
      mount: 'gateway',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Suspend (active: false) or restore (active: true) an account; suspending ends its browser sessions',
      params: accountParams,
      body: activeBody,
      responses: { 200: { schema: defineSchema({ ...accountRowSchema, required: [...accountRowSchema.required, 'changed'], properties: { ...accountRowSchema.properties, changed: { type: 'boolean' } } }) } },
      handler: async ({ params, body, principal, koa }) => {
        const before = existing(params.account);
        if (!body.active && (params.account === ADMIN_ACCOUNT || params.account === principal.account)) {
          throw conflict(params.account === ADMIN_ACCOUNT ? 'The bootstrap admin account cannot be suspended.' : 'You cannot suspend your own account; ask another admin.', { code: 'protected_account' });
        }
        const changed = before.disabled === body.active;
        await accounts.setActive(params.account, body.active);
        // A suspension ends the account's browser sessions and its unclaimed sign-in codes (a restore brings neither back).
        if (!body.active) {
          await signin.sessions.endAll(params.account);
          await signin.codes.endAll(params.account);
        }
        if (changed) await signin.activity.record(params.account, body.active ? 'account_restored' : 'account_suspended', { actor: principal.account, source: core.auth.sourceOf(koa) });
        return { ...row(existing(params.account), principal), changed };
      },
    }),
    route({
      method: 'GET',
      path: '/admin/accounts/:account/activity',
      mount: 'gateway',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'An account\'s activity log, newest first',
      params: accountParams,
      query: activityQuery,
      responses: { 200: { schema: activityPageSchema } },
      handler: ({ params, query }) => {
        existing(params.account);
        return activityPage(params.account, query);
      },
    }),
    route({
      method: 'GET',
      path: '/me/accounts',
      mount: 'gateway',
      tags: ['accounts'],
      summary: 'The accounts the caller may look at: its own, or every account for an admin',
      responses: { 200: { schema: accountListSchema } },
      handler: ({ principal }) => {
        const records = core.auth.isAdmin(principal) ? accounts.list() : [existing(principal.account)];
        return { items: records.map((r) => row(r, principal)) };
      },
    }),
    route({
      method: 'GET',
      path: '/me/accounts/:account/activity',
      mount: 'gateway',
      tags: ['accounts'],
      summary: 'The activity of an account the caller may look at (its own, also named `me`; any for an admin)',
      params: accountParams,
      query: activityQuery,
      responses: { 200: { schema: activityPageSchema } },
      handler: ({ params, query, principal }) => {
        // `me` names the caller, as in `/accounts/{me|account}/preferences` (the id `me` is reserved).
        const account = params.account === 'me' ? principal.account : params.account;
        visible(principal, account);
        return activityPage(account, query);
      },
    }),
    route({
      method: 'GET',
      path: '/me/activity',
      mount: 'gateway',
      tags: ['accounts'],
      summary: 'The caller\'s own activity log, newest first',
      query: activityQuery,
      responses: { 200: { schema: activityPageSchema } },
      handler: ({ query, principal }) => activityPage(principal.account, query),
    }),
  ];
}
