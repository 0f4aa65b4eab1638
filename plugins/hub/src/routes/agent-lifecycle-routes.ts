/** Operator surfaces over seats (operator seat or the admin key): missions, role, retire, restore, delete. */
import { route, schema } from '@keel/plugin-sdk';
import { AgentLifecycle } from '../governance/agent-lifecycle.js';
import type { Hub } from '../hub.js';
import { agentParams } from './schemas.js';

const missionBody = schema<{ mission: string }>({ type: 'object', required: ['mission'], properties: { mission: { type: 'string' } } });
const retireBody = schema<{ reason: string }>({ type: 'object', properties: { reason: { type: 'string', default: '' } } });
const roleBody = schema<{ operator: boolean }>({ type: 'object', required: ['operator'], properties: { operator: { type: 'boolean' } } });

export function agentLifecycleRoutes(hub: Hub) {
  const lifecycle = new AgentLifecycle(hub);
  return [
    route({
      method: 'GET', path: '/admin/missions', auth: 'none', tags: ['hub'], summary: 'Every active seat with its standing mission (blanks included)',
      handler: async ({ koa }) => {
        await hub.auth.operatorOrAdmin(koa, 'reading missions is an operator view');
        return lifecycle.missions();
      },
    }),
    route({
      method: 'PUT', path: '/admin/agents/:id/mission', auth: 'none', tags: ['hub'], summary: "Set a seat's standing mission (never by the seat itself)",
      params: agentParams, body: missionBody,
      handler: async ({ koa, params, body }) => {
        const actor = await hub.auth.operatorOrAdmin(koa, 'setting a mission is an operator act');
        return lifecycle.setMission(actor, params.id, body.mission);
      },
    }),
    route({
      method: 'PUT', path: '/agents/:id/role', auth: 'none', tags: ['hub'], summary: 'Promote a seat to operator or demote it',
      params: agentParams, body: roleBody,
      handler: async ({ koa, params, body }) => {
        const actor = await hub.auth.operatorOrAdmin(koa, 'changing a role is an operator act');
        return lifecycle.setRole(actor, params.id, body.operator);
      },
    }),
    route({
      method: 'POST', path: '/agents/:id/retire', auth: 'none', tags: ['hub'], summary: 'Retire a seat: off every room roster, refused at authentication, id reserved',
      params: agentParams, body: retireBody,
      handler: async ({ koa, params, body }) => {
        await hub.auth.operatorOrAdmin(koa, 'retiring an identity is an operator act');
        return lifecycle.retire(params.id, body.reason);
      },
    }),
    route({
      method: 'DELETE', path: '/agents/:id/retire', auth: 'none', tags: ['hub'], summary: 'Restore a retired seat (memberships are not restored)',
      params: agentParams,
      handler: async ({ koa, params }) => {
        await hub.auth.operatorOrAdmin(koa, 'restoring an identity is an operator act');
        return lifecycle.unretire(params.id);
      },
    }),
    route({
      method: 'GET', path: '/agents/retired', auth: 'none', tags: ['hub'], summary: 'Retired seats, newest first',
      handler: async ({ koa }) => {
        await hub.auth.operatorOrAdmin(koa, 'listing retired agents is an operator view');
        return lifecycle.retired();
      },
    }),
    route({
      method: 'DELETE', path: '/agents/:id', auth: 'none', tags: ['hub'], summary: 'Hard-delete a retired seat (purged from rosters and boards; the id stays reserved)',
      params: agentParams,
      handler: async ({ koa, params }) => {
        await hub.auth.operatorOrAdmin(koa, 'deleting an identity is an operator act');
        return lifecycle.delete(params.id);
      },
    }),
  ];
}
