/** Operator surfaces over seats (operator seat or the admin key): missions, role, retire, restore, delete. */
import { missionBody as missionBodyWire, operatorRoleBody, retireBody as retireBodyWire } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { AgentLifecycle } from '../governance/agent-lifecycle.js';
import type { Hub } from '../hub.js';
import { operatorAct } from './operator-act.js';
import { agentParams } from './schemas.js';

const missionBody = defineSchema(missionBodyWire);
const retireBody = defineSchema(retireBodyWire);
const roleBody = defineSchema(operatorRoleBody);

export function agentLifecycleRoutes(hub: Hub, lifecycle: AgentLifecycle) {
  return [
    route({
      method: 'GET', path: '/admin/missions', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Every active seat with its standing mission (blanks included)',
      handler: operatorAct('reading missions is an operator view', () => lifecycle.missions()),
    }),
    route({
      method: 'PUT', path: '/admin/agents/:id/mission', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: "Set a seat's standing mission (never by the seat itself)",
      params: agentParams, body: missionBody,
      handler: operatorAct('setting a mission is an operator act', (actor, { params, body }) => lifecycle.setMission(actor, params.id, body.mission)),
    }),
    route({
      method: 'PUT', path: '/agents/:id/role', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Promote a seat to operator or demote it',
      params: agentParams, body: roleBody,
      handler: operatorAct('changing a role is an operator act', (actor, { params, body }) => lifecycle.setRole(actor, params.id, body.operator)),
    }),
    route({
      method: 'POST', path: '/agents/:id/retire', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Retire a seat: off every room roster, refused at authentication, id reserved',
      params: agentParams, body: retireBody,
      handler: operatorAct('retiring an identity is an operator act', (_actor, { params, body }) => lifecycle.retire(params.id, body.reason)),
    }),
    route({
      method: 'DELETE', path: '/agents/:id/retire', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Restore a retired seat (memberships are not restored)',
      params: agentParams,
      handler: operatorAct('restoring an identity is an operator act', (_actor, { params }) => lifecycle.unretire(params.id)),
    }),
    route({
      method: 'GET', path: '/agents/retired', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Retired seats, newest first',
      handler: operatorAct('listing retired agents is an operator view', () => lifecycle.retired()),
    }),
    route({
      method: 'DELETE', path: '/agents/:id', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Hard-delete a retired seat (purged from rosters and boards; the id stays reserved)',
      params: agentParams,
      handler: operatorAct('deleting an identity is an operator act', (_actor, { params }) => lifecycle.delete(params.id)),
    }),
  ];
}
