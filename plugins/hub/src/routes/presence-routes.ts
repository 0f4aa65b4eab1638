/** `GET /presence`: who is around — the caller and every seat sharing a channel with it (operators see everyone). */
import type { PresenceRow } from '@keel/hub-client';
import { route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';

export function presenceRoutes(hub: Hub) {
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
  ];
}
