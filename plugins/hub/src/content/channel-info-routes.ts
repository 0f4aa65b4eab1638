/** `GET /channels/{c}/info`: the channel, its members, and what the info parts add (meta, charter, phases, state). */
import { route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { channelParams } from '../routes/schemas.js';

export function channelInfoRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/info', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Channel info: members, meta, room charter descriptor, phases, state',
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        return hub.channelInfo(hub.channels.requireMember(params.channel, seat.id), seat);
      },
    }),
  ];
}
