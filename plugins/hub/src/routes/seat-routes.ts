/** The caller's own acts of reference §8.5: its self-description, opening a direct channel without posting. */
import { aboutBody as aboutBodyWire, agentInfoResponse, peerParams as peerParamsWire } from '@keel/hub-client/wire';
import { badRequest, defineSchema, notFound, route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { agentInfo } from '../identity/agent-registry.js';
import { capText } from '../text-rules.js';
import { emptyBody } from './schemas.js';

const aboutBody = defineSchema(aboutBodyWire);
const peerParams = defineSchema(peerParamsWire);
const ABOUT_MAX = 500;

/** Cleaned like titles: each run of control characters becomes one space, then trimmed. */
function cleanLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

export function seatRoutes(hub: Hub) {
  return [
    route({
      method: 'PUT', path: '/me/about', auth: hub.auth.seatKey, tags: ['hub'], summary: "Set the caller's self-description (at most 500 characters; its mission is the operator's)",
      body: aboutBody, responses: { 200: { schema: defineSchema(agentInfoResponse) } },
      handler: async ({ principal: seat, body }) => {
        hub.pause.requireOpen(seat);
        const about = capText(cleanLine(body.about), ABOUT_MAX, 'about');
        const updated = await hub.db.transaction(() => {
          const current = hub.db.agents.get(seat.id) ?? seat;
          const next = { ...current, about };
          hub.db.agents.put(seat.id, next);
          return next;
        });
        return agentInfo(updated);
      },
    }),
    route({
      method: 'POST', path: '/dms/:peer', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Open (or reopen) the direct channel with a seat without posting; answers its channel info',
      params: peerParams, body: emptyBody, bodyKind: 'json',
      handler: async ({ principal: seat, params }) => {
        const peer = hub.agents.live(params.peer);
        // A paused hub still opens direct channels with an operator (as it carries their messages).
        if (!peer?.operator) hub.pause.requireOpen(seat);
        if (params.peer === seat.id) throw badRequest('cannot open a direct channel with yourself');
        if (!peer) throw notFound(`agent '${params.peer}' is not registered`);
        if (peer.retired_at !== null) throw notFound(`agent '${params.peer}' has been retired (decommissioned) — no new direct channel`);
        const c = await hub.writer.run((w) => hub.channels.ensureDmIn(w, seat, peer));
        return hub.channelInfo(c, seat);
      },
    }),
  ];
}
