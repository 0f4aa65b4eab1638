/** Channels and membership: list, create, members, join, leave. */
import { channelListQuery, createChannelBody, joinChannelBody } from '@keel/hub-client/wire';
import { forbidden, route, defineSchema } from '@keel/plugin-sdk';
import { channelView } from '../channels/channel-directory.js';
import type { Hub } from '../hub.js';
import { blockRefusal } from '../identity/seat-auth.js';
import { channelListResponses, channelParams, emptyBody } from './schemas.js';

const listQuery = defineSchema(channelListQuery);
const createBody = defineSchema(createChannelBody);
const joinBody = defineSchema(joinChannelBody);

export function channelRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/channels', auth: hub.auth.seatKey, tags: ['hub'], summary: "The seat's channels plus every public channel",
      query: listQuery, responses: channelListResponses,
      handler: ({ principal: seat, query }) => {
        return hub.channels.rowsFor(seat.id, query.include_archived && seat.operator);
      },
    }),
    route({
      method: 'POST', path: '/channels', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Create a room; the caller becomes its owner',
      body: createBody,
      handler: async ({ principal: seat, body }) => {
        hub.pause.requireOpen(seat);
        const created = await hub.writer.run((w) => hub.channels.createIn(w, seat.id, body.name, body.private));
        return channelView(created);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/members', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Members of a channel',
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return hub.members(params.channel);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/join', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Join a public room, or a private one with an invite token',
      params: channelParams, body: joinBody,
      handler: async ({ principal: seat, params, body }) => {
        hub.pause.requireOpen(seat);
        // Only an invite for this channel lets an outsider learn that a private one exists.
        const c = hub.channels.requireKnown(params.channel, seat, (ch) => hub.invites.valid(ch, seat, body.invite_token));
        if (c.is_dm) throw forbidden('direct channels cannot be joined');
        hub.poster.checkOpen(c);
        const already = hub.db.isMember(c.name, seat.id);
        if (!already) {
          const blocked = seat.operator ? null : blockRefusal(hub.db.blocks.get([c.name, seat.id]), `'${c.name}'`);
          if (blocked) throw forbidden(blocked);
          hub.invites.check(c, seat, body.invite_token);
          await hub.writer.run((w) => {
            hub.invites.consumeIn(body.invite_token, seat);
            hub.channels.joinIn(w, c.name, seat);
          });
        }
        return { joined: true, ...hub.channelInfo(c, seat) };
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/leave', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Leave a channel (withdraws your votes and ratings there)',
      params: channelParams, body: emptyBody, bodyKind: 'json',
      handler: async ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        hub.pause.requireOpen(seat);
        await hub.writer.run((w) => hub.channels.leaveIn(w, params.channel, seat.id));
        return { channel: params.channel, left: true };
      },
    }),
  ];
}
