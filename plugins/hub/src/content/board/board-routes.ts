/** The channel board: work rows, one work item across channels, the digest, ruling acknowledgements. */
import { rulingAckBody, workItemParams } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { channelParams } from '../../routes/schemas.js';
import type { HubContent } from '../hub-content.js';

const itemParams = defineSchema(workItemParams);
const ackBody = defineSchema(rulingAckBody);

export function boardRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/work', auth: hub.auth.seatKey, tags: ['hub'], summary: "The channel's work rows (work:<id> store rows), sorted by id",
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return content.work.rows(params.channel);
      },
    }),
    route({
      method: 'GET', path: '/work/:item_id', auth: hub.auth.seatKey, tags: ['hub'], summary: "One work item across the caller's channels: rows, claims, decisions, messages",
      params: itemParams,
      handler: ({ principal: seat, params }) => {
        return content.work.report(params.item_id, hub.db.channelsOf(seat.id));
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/digest', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Phases, rulings, open questions, what was decided, decisions',
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        const { channel: c } = hub.member(seat, params.channel);
        return content.digests.digest(c, seat);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/ruling-acks', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Acknowledge standing rulings at their current version',
      params: channelParams, body: ackBody,
      handler: async ({ principal: seat, params, body }) => {
        const { channel: c } = hub.member(seat, params.channel);
        return { channel: c.name, agent_id: seat.id, acked: await content.rulings.ack(c, seat, body.keys) };
      },
    }),
  ];
}
