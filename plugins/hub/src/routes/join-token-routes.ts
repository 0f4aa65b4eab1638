/** Remote onboarding: the admin mints join tokens; `POST /join` (no key — the token is the credential) registers a seat. */
import { joinTokenParams, mintJoinTokenBody, redeemJoinTokenBody } from '@keel/hub-client/wire';
import { forbidden, route, defineSchema } from '@keel/plugin-sdk';
import { JoinTokens } from '../governance/join-tokens.js';
import type { Hub } from '../hub.js';
import { ADMIN_PRINCIPAL } from '../identity/seat-auth.js';

const mintBody = defineSchema(mintJoinTokenBody);
const joinBody = defineSchema(redeemJoinTokenBody);
const tokenParams = defineSchema(joinTokenParams);

export function joinTokenRoutes(hub: Hub) {
  const tokens = new JoinTokens(hub);
  const requireAdmin = async (koa: Parameters<typeof hub.auth.isAdminKey>[0], act: string) => {
    if (!(await hub.auth.isAdminKey(koa))) throw forbidden(`${act} requires the admin key`);
  };
  return [
    route({
      method: 'POST', path: '/join-tokens', auth: 'none', tags: ['hub'], summary: 'Mint a join token (admin key); the secret is shown once',
      body: mintBody,
      handler: async ({ koa, body }) => {
        await requireAdmin(koa, 'minting a join token');
        return tokens.mint(body, ADMIN_PRINCIPAL.id);
      },
    }),
    route({
      method: 'GET', path: '/join-tokens', auth: 'none', tags: ['hub'], summary: 'Join tokens for audit (admin key; no secrets)',
      handler: async ({ koa }) => {
        await requireAdmin(koa, 'listing join tokens');
        return tokens.list();
      },
    }),
    route({
      method: 'DELETE', path: '/join-tokens/:token_id', auth: 'none', tags: ['hub'], summary: 'Revoke a join token (admin key)',
      params: tokenParams,
      handler: async ({ koa, params }) => {
        await requireAdmin(koa, 'revoking a join token');
        return tokens.revoke(params.token_id);
      },
    }),
    route({
      method: 'POST', path: '/join', auth: 'none', tags: ['hub'], summary: 'Register a non-operator seat with a join token (no key needed); the key is shown once',
      body: joinBody,
      handler: ({ body }) => {
        hub.pause.requireOpen(null);
        return tokens.join(body.token, body.agent_id, body.about);
      },
    }),
  ];
}
