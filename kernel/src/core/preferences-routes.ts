/**
 * Per-account client preferences: `GET/PUT /api/gateway/accounts/{me|account}/preferences`, one
 * JSON object of at most `server.accounts.preferencesMaxBytes`, read and replaced by its owner or an
 * admin. Another account is 404 to a non-admin, whether it exists or not.
 */
import { defineSchema, notFound, route, type Principal } from '@keel/plugin-sdk';
import { ACCOUNT_NAME } from './account-list-routes.js';
import type { CoreContext } from './core-context.js';

const params = defineSchema({
  type: 'object',
  required: ['account'],
  properties: { account: { type: 'string', pattern: ACCOUNT_NAME, description: '`me`, or an account id (an admin may name any).' } },
});

const putBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['preferences'],
  properties: { preferences: { type: 'object', description: 'The whole preferences object; it replaces the stored one.' } },
  examples: [{ preferences: { theme: 'dark', time_zone: 'Europe/Paris' } }],
});

const answerSchema = defineSchema({
  type: 'object',
  required: ['account', 'preferences', 'updated_at', 'updated_by', 'max_bytes'],
  properties: {
    account: { type: 'string' },
    preferences: { type: 'object' },
    updated_at: { type: ['string', 'null'] },
    updated_by: { type: ['string', 'null'] },
    max_bytes: { type: 'integer', description: 'server.accounts.preferencesMaxBytes' },
  },
});

export function preferencesRoutes(core: CoreContext) {
  const { accounts, auth, signin } = core;
  const maxBytes = signin.settings.accounts.preferencesMaxBytes;

  /** `me` is the caller; another account only for an admin, and only if it exists. */
  const target = (principal: Principal, named: string): string => {
    const account = named === 'me' ? principal.account : named;
    if (account === principal.account) return account;
    if (!auth.isAdmin(principal) || !accounts.get(account)) {
      throw notFound(`Account '${account}' does not exist or is not yours.`, { code: 'account_not_found' });
    }
    return account;
  };

  return [
    route({
      method: 'GET',
      path: '/accounts/:account/preferences',
      mount: 'gateway',
      tags: ['accounts'],
      summary: 'An account\'s client preferences (owner or admin; `me` for the caller)',
      params,
      responses: { 200: { schema: answerSchema } },
      handler: ({ params: p, principal }) => {
        const account = target(principal, p.account);
        return { account, ...signin.preferences.get(account), max_bytes: maxBytes };
      },
    }),
    route({
      method: 'PUT',
      path: '/accounts/:account/preferences',
      mount: 'gateway',
      tags: ['accounts'],
      summary: 'Replace an account\'s client preferences (owner or admin); 413 beyond server.accounts.preferencesMaxBytes',
      params,
      body: putBody,
      // Room for the wrapper around the object; the object itself is measured against the setting.
      bodyLimitBytes: maxBytes + 1024,
      responses: { 200: { schema: answerSchema } },
      handler: async ({ params: p, body, principal, koa }) => {
        const account = target(principal, p.account);
        const stored = await signin.preferences.set(account, body.preferences, principal.account);
        await signin.activity.record(account, 'preferences_changed', { actor: account === principal.account ? null : principal.account, source: auth.sourceOf(koa) });
        return { account, ...stored, max_bytes: maxBytes };
      },
    }),
  ];
}
