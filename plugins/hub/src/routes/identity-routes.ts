/** Health, identity and seat issuance: `/healthz`, `/`, `/whoami`, `POST /agents`, `GET /agents`. */
import { pauseBody as pauseBodyWire, registerAgentBody } from '@keel/hub-client/wire';
import type { Health, WhoamiReport } from '@keel/hub-client';
import { route, defineSchema } from '@keel/plugin-sdk';
import { HUB_PROTOCOL, HUB_VERSION, type Hub } from '../hub.js';
import { agentInfo } from '../identity/agent-registry.js';
import { operatorAct } from './operator-act.js';
import { healthResponses } from './schemas.js';

const registerBody = defineSchema(registerAgentBody);

const pauseBody = defineSchema(pauseBodyWire);

export function identityRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/healthz', auth: 'none', tags: ['hub'], summary: 'Hub health and protocol string (no key needed)',
      responses: healthResponses,
      handler: (): Health => ({ ok: true, db: 'ok', version: HUB_VERSION, protocol: HUB_PROTOCOL, paused: hub.pause.paused() }),
    }),
    route({
      method: 'GET', path: '/', auth: 'none', tags: ['hub'], summary: 'Hub service banner',
      handler: () => ({ service: 'agora', version: HUB_VERSION, protocol: HUB_PROTOCOL }),
    }),
    route({
      method: 'GET', path: '/whoami', auth: hub.auth.seatKey, tags: ['hub'], summary: "The calling seat: operator flag, mission, hub charter pointer",
      handler: ({ principal: seat }): WhoamiReport => {
        return {
          ...agentInfo(seat), version: HUB_VERSION, protocol: HUB_PROTOCOL,
          hub_state: hub.pause.state(), delegations: [], ...hub.whoamiExtras(seat),
        };
      },
    }),
    route({
      method: 'POST', path: '/admin/pause', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Pause the hub (operator or admin key): non-operator writes answer 423 until resumed',
      body: pauseBody,
      handler: operatorAct('pausing the hub is an operator act', (actor, { body }) => hub.pause.pause(actor.id, body.reason)),
    }),
    route({
      method: 'PUT', path: '/admin/pause', auth: hub.auth.adminKey('pausing the hub'), tags: ['hub'], summary: "Pause the hub (the reference's form: admin key only): non-operator writes answer 423 until resumed",
      body: pauseBody,
      handler: ({ principal, body }) => hub.pause.pause(principal.id, body.reason),
    }),
    route({
      method: 'DELETE', path: '/admin/pause', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Lift a pause (operator or admin key)',
      handler: operatorAct('lifting a pause is an operator act', () => hub.pause.resume()),
    }),
    route({
      method: 'POST', path: '/agents', auth: hub.auth.adminKey('agent registration'), tags: ['hub'], summary: 'Register a seat (admin key); the key is shown once',
      body: registerBody,
      handler: ({ body }) => hub.agents.register(body),
    }),
    route({
      method: 'GET', path: '/agents', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Every seat with its operator flag, sorted by id',
      handler: () => hub.agents.all().filter((a) => a.retired_at === null).map((a) => ({ id: a.id, operator: a.operator })),
    }),
  ];
}
