/** `GET /supervise` and `GET /channels/{c}/supervise` (reference §8.3): a delegate's view of stalled rooms. */
import { superviseAllResponse, superviseChannelResponse } from '@keel/hub-client/wire';
import { defineSchema, route } from '@keel/plugin-sdk';
import type { Supervise } from '../governance/supervise.js';
import type { Hub } from '../hub.js';
import { channelParams } from './schemas.js';

export function superviseRoutes(hub: Hub, supervise: Supervise) {
  return [
    route({
      method: 'GET', path: '/supervise', auth: hub.auth.seatKey, tags: ['hub'], summary: "Every room the caller's delegation reaches: idle seats, parked claims, what the caller can end",
      responses: { 200: { schema: defineSchema(superviseAllResponse) } },
      handler: ({ principal: seat }) => supervise.all(seat),
    }),
    route({
      method: 'GET', path: '/channels/:channel/supervise', auth: hub.auth.seatKey, tags: ['hub'], summary: 'One room, seen by a delegate whose grant reaches it',
      params: channelParams, responses: { 200: { schema: defineSchema(superviseChannelResponse) } },
      handler: ({ principal: seat, params }) => supervise.channel(seat, params.channel),
    }),
  ];
}
