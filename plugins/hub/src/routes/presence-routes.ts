/**
 * Presence (reference §8.1 B3): `GET /presence` (the caller and every seat sharing a channel with it;
 * operators see everyone), `GET /presence/{id}` (one seat you may see) and `PUT /presence` (declare
 * `idle` or `working`; it shows while a socket is held).
 */
import type { PresenceRow } from '@keel/hub-client';
import { presenceBody as presenceBodyWire } from '@keel/hub-client/wire';
import { badRequest, defineSchema, notFound, route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { agentParams } from './schemas.js';

const presenceBody = defineSchema(presenceBodyWire);

export function presenceRoutes(hub: Hub) {
  const sharesAChannel = (a: string, b: string) => hub.db.channelsOf(a).some((c) => hub.db.memberIds(c).has(b));
  return [
    route({
      method: 'GET', path: '/presence', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Presence of the seats you share a channel with, sorted by id',
      handler: ({ principal: seat }): PresenceRow[] => {
        const ids = new Set<string>([seat.id]);
        if (seat.operator) {
          for (const a of hub.agents.all()) if (a.retired_at === null) ids.add(a.id);
        } else {
          for (const channel of hub.db.channelsOf(seat.id)) for (const m of hub.db.membersOf(channel)) ids.add(m.agent_id);
        }
        return [...ids].sort().map((id) => ({ agent_id: id, ...hub.presence.of(id) }));
      },
    }),
    route({
      method: 'GET', path: '/presence/:id', auth: hub.auth.seatKey, tags: ['hub'], summary: "One seat's presence: yourself, a seat sharing a channel with you, or any id for an operator",
      params: agentParams,
      handler: ({ principal: seat, params }): PresenceRow => {
        const target = params.id;
        if (target !== seat.id && !seat.operator && !sharesAChannel(seat.id, target)) throw notFound(`no visible presence for '${target}'`);
        return { agent_id: target, ...hub.presence.of(target) };
      },
    }),
    route({
      method: 'PUT', path: '/presence', auth: hub.auth.seatKey, tags: ['hub'], summary: "Declare 'idle' or 'working' (shown while you hold a live socket); answers the stored state",
      body: presenceBody,
      handler: ({ principal: seat, body }): PresenceRow => {
        if (body.state !== 'idle' && body.state !== 'working') throw badRequest("state must be 'idle' or 'working'");
        return hub.presence.declare(seat.id, body.state);
      },
    }),
  ];
}
