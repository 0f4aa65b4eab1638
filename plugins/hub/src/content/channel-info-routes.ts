/** `GET /channels/{c}/info`: the channel, its members, and what the info parts add (meta, charter, phases, state). */
import { route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { channelParams } from '../routes/schemas.js';

export function channelInfoRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/info', auth: 'none', tags: ['hub'], summary: 'Channel info: members, meta, room charter descriptor, phases, state',
      params: channelParams,
      handler: ({ koa, params }) => {
        const seat = hub.auth.seat(koa);
        return hub.channelInfo(hub.channels.requireMember(params.channel, seat.id), seat);
      },
    }),
  ];
}
