/** `GET /channels/{c}/messages/{id}/references`: the files and seats a message body cites. */
import { notFound, route } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { toMessage } from '../../messages/message-views.js';
import { messageParams } from '../../routes/schemas.js';
import type { HubContent } from '../hub-content.js';
import { references } from './references.js';

export function referenceRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/messages/:id/references', auth: hub.auth.seatKey, tags: ['hub'],
      summary: "The @file and @seat references of a message (other channels' files only when the reader belongs to them)",
      params: messageParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        const m = hub.db.messageById(params.id);
        if (!m || m.channel !== params.channel) throw notFound(`message '${params.id}' not found in '${params.channel}'`);
        // A retracted body is a tombstone: it cites nothing.
        return references(toMessage(m).retracted ? '' : m.body, m.channel, {
          isSeat: (id) => hub.agents.live(id) !== undefined,
          canRead: (channel) => hub.channels.get(channel) !== undefined && hub.db.isMember(channel, seat.id),
          version: (channel, path) => content.fs.head(channel, path)?.version ?? null,
        });
      },
    }),
  ];
}
