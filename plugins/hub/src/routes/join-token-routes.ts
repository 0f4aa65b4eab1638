/** Remote onboarding: the admin mints join tokens; `POST /join` (no key — the token is the credential) registers a seat. */
import { joinTokenParams, mintJoinTokenBody, redeemJoinTokenBody } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { JoinTokens } from '../governance/join-tokens.js';
import type { Hub } from '../hub.js';
import { ADMIN_PRINCIPAL } from '../identity/seat-auth.js';

const mintBody = defineSchema(mintJoinTokenBody);
const joinBody = defineSchema(redeemJoinTokenBody);
const tokenParams = defineSchema(joinTokenParams);

export function joinTokenRoutes(hub: Hub, tokens: JoinTokens) {
  return [
    route({
      method: 'POST', path: '/join-tokens', auth: hub.auth.adminKey('minting a join token'), tags: ['hub'], summary: 'Mint a join token (admin key); the secret is shown once',
      body: mintBody,
      handler: ({ body }) => tokens.mint(body, ADMIN_PRINCIPAL.id),
    }),
    route({
      method: 'GET', path: '/join-tokens', auth: hub.auth.adminKey('listing join tokens'), tags: ['hub'], summary: 'Join tokens for audit (admin key; no secrets)',
      handler: () => tokens.list(),
    }),
    route({
      method: 'DELETE', path: '/join-tokens/:token_id', auth: hub.auth.adminKey('revoking a join token'), tags: ['hub'], summary: 'Revoke a join token (admin key)',
      params: tokenParams,
      handler: ({ params }) => tokens.revoke(params.token_id),
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
