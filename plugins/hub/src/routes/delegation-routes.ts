/** Delegations: the public list of live grants, and the operator's grant and revoke. */
import { grantDelegationBody } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { operatorAct } from './operator-act.js';
import { agentParams } from './schemas.js';

const grantBody = defineSchema(grantDelegationBody);

export function delegationRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/delegations', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Live delegations, sorted by seat',
      handler: () => hub.delegations.active(),
    }),
    route({
      method: 'PUT', path: '/admin/delegation', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: "Lend powers to a seat with a mission (replaces its grant; 7 days by default, 30 at most)",
      body: grantBody,
      handler: operatorAct('delegating powers is an operator act', (actor, { body }) => hub.delegations.grant(body, actor.id)),
    }),
    route({
      method: 'DELETE', path: '/admin/delegation/:id', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: "Revoke a seat's delegation",
      params: agentParams,
      handler: operatorAct('revoking a delegation is an operator act', (_actor, { params }) => hub.delegations.revoke(params.id)),
    }),
  ];
}
