/** Accounts and tokens: `GET /api/gateway/me` and the admin routes under `/api/gateway/admin/users`. */
import { conflict, defineSchema, notFound, reply, route, KEY_ID_MAX_LENGTH } from '@keel/plugin-sdk';
import { ADMIN_ACCOUNT } from '../auth/bootstrap-admin.js';
import type { AccountRecord } from '../auth/account-store.js';
import { AUTH_VIA_STATE_KEY, SESSION_STATE_KEY, type SignedInSession } from '../auth/auth-service.js';
import type { CoreContext } from './core-context.js';

const NAME = '^[a-z0-9][a-z0-9._-]{0,63}$';

const createUserBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['account'],
  properties: {
    account: { type: 'string', pattern: NAME, description: 'Account id: lowercase letters, digits, dot, dash, underscore.' },
    tenant: { type: 'string', pattern: NAME, default: 'default' },
    roles: { type: 'array', items: { type: 'string', pattern: NAME }, default: [], uniqueItems: true },
    display_name: { type: 'string', maxLength: 200 },
    token_label: { type: 'string', maxLength: 200 },
  },
});

const accountParams = defineSchema({
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', pattern: NAME } },
});

const tokenParams = defineSchema({
  type: 'object',
  required: ['account', 'token_id'],
  properties: { account: { type: 'string', pattern: NAME }, token_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});

const tokenBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { label: { type: 'string', maxLength: 200 } },
});

const accountSchema = {
  type: 'object',
  properties: {
    account: { type: 'string' }, tenant: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } },
    display_name: { type: ['string', 'null'] }, created_at: { type: 'string' }, disabled: { type: 'boolean' },
  },
} as const;
const tokenRecordSchema = {
  type: 'object',
  properties: { token_id: { type: 'string' }, account: { type: 'string' }, label: { type: ['string', 'null'] }, created_at: { type: 'string' } },
} as const;
const issuedTokenSchema = { ...tokenRecordSchema, properties: { ...tokenRecordSchema.properties, token: { type: 'string', description: 'Shown once; store it now.' } } } as const;

export function accountRoutes(core: CoreContext) {
  const { accounts, signin } = core;
  const mustExist = (account: string): AccountRecord => {
    const record = accounts.get(account);
    if (!record) throw notFound(`Account '${account}' does not exist.`, { code: 'account_not_found' });
    return record;
  };

  return [
    route({
      method: 'GET',
      path: '/api/gateway/me',
      tags: ['accounts'],
      summary: 'The principal the bearer token (or the browser session cookie) stands for',
      responses: {
        200: {
          schema: defineSchema({
            type: 'object',
            properties: {
              account: { type: 'string' }, tenant: { type: 'string' }, roles: { type: 'array' }, token_id: { type: ['string', 'null'] }, is_admin: { type: 'boolean' },
              via: { enum: ['bearer', 'session'], description: 'How this request was signed in.' },
              session_expires_at: { type: ['string', 'null'], description: 'When the browser session ends (null with a bearer token).' },
            },
          }),
        },
      },
      handler: ({ principal, koa }) => {
        const session = koa.state[SESSION_STATE_KEY] as SignedInSession | undefined;
        return {
          account: principal.account,
          tenant: principal.tenant,
          roles: principal.roles,
          token_id: principal.tokenId,
          is_admin: principal.roles.includes('admin'),
          via: koa.state[AUTH_VIA_STATE_KEY] === 'session' ? 'session' : 'bearer',
          session_expires_at: session?.record.expires_at ?? null,
        };
      },
    }),
    route({
      method: 'GET',
      path: '/api/gateway/admin/users',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'List accounts',
      responses: { 200: { schema: defineSchema({ type: 'object', properties: { items: { type: 'array', items: accountSchema } } }) } },
      handler: () => ({ items: accounts.list().map((a) => ({ ...a, token_count: accounts.tokensOf(a.account).length })) }),
    }),
    route({
      method: 'POST',
      path: '/api/gateway/admin/users',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Create an account and its first token (the token is shown only in this response)',
      body: createUserBody,
      responses: { 201: { schema: defineSchema({ ...accountSchema, properties: { ...accountSchema.properties, token: issuedTokenSchema } }) } },
      handler: async ({ body }) => {
        // `me` names the caller in /accounts/{me|account}/preferences: no account may take it.
        if (body.account === 'me') throw conflict('The account id \'me\' is reserved (it names the caller in account routes); choose another.', { code: 'account_exists', field: 'account' });
        const { record, token } = await accounts.create(body, body.token_label ?? null);
        return reply(201, { ...record, token });
      },
    }),
    route({
      method: 'GET',
      path: '/api/gateway/admin/users/:account',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'One account and its tokens (ids and labels only)',
      params: accountParams,
      responses: { 200: { schema: defineSchema({ ...accountSchema, properties: { ...accountSchema.properties, tokens: { type: 'array', items: tokenRecordSchema } } }) } },
      handler: ({ params }) => ({ ...mustExist(params.account), tokens: accounts.tokensOf(params.account) }),
    }),
    route({
      method: 'DELETE',
      path: '/api/gateway/admin/users/:account',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Disable an account and revoke all its tokens (its id stays reserved)',
      params: accountParams,
      responses: { 200: { schema: defineSchema(accountSchema) } },
      handler: async ({ params, principal, koa }) => {
        mustExist(params.account);
        if (params.account === ADMIN_ACCOUNT) throw conflict('The bootstrap admin account cannot be disabled.', { code: 'protected_account' });
        await accounts.disable(params.account);
        await signin.sessions.endAll(params.account);
        await signin.codes.endAll(params.account);
        await signin.activity.record(params.account, 'account_suspended', { actor: principal.account, source: core.auth.sourceOf(koa) });
        return mustExist(params.account);
      },
    }),
    route({
      method: 'POST',
      path: '/api/gateway/admin/users/:account/tokens',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Issue another token for an account (shown only in this response)',
      params: accountParams,
      body: tokenBody,
      responses: { 201: { schema: defineSchema(issuedTokenSchema) } },
      handler: async ({ params, body, principal, koa }) => {
        const record = mustExist(params.account);
        if (record.disabled) throw conflict(`Account '${params.account}' is disabled.`, { code: 'account_disabled' });
        const issued = await accounts.issue(params.account, body.label ?? null);
        await signin.activity.record(params.account, 'token_issued', { actor: principal.account, source: core.auth.sourceOf(koa), token_id: issued.token_id });
        return reply(201, issued);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/gateway/admin/users/:account/tokens/:token_id',
      auth: 'admin',
      tags: ['accounts'],
      summary: 'Revoke a token',
      params: tokenParams,
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ params, principal, koa }) => {
        mustExist(params.account);
        if (!(await accounts.revoke(params.account, params.token_id))) {
          throw notFound(`Token '${params.token_id}' of account '${params.account}' does not exist.`, { code: 'token_not_found' });
        }
        // The sessions the token signed in end with it (they are refused anyway: a session stands on its token).
        await signin.sessions.endForToken(params.account, params.token_id);
        await signin.activity.record(params.account, 'token_revoked', { actor: principal.account, source: core.auth.sourceOf(koa), token_id: params.token_id });
        return reply(204);
      },
    }),
  ];
}
