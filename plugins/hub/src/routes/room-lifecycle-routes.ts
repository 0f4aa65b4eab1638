/** Room lifecycle: invites, groups (a room with purpose and invited members), archive and unarchive. */
import { createGroupBody, createInviteBody } from '@keel/hub-client/wire';
import { badRequest, forbidden, notFound, route, defineSchema } from '@keel/plugin-sdk';
import type { ChannelArchive } from '../governance/channel-archive.js';
import type { Groups } from '../governance/groups.js';
import { mayAdministerRoom, ownerLabel } from '../governance/room-authority.js';
import type { Hub } from '../hub.js';
import { requireOperator } from '../identity/seat-auth.js';
import { channelParams, emptyBody } from './schemas.js';

const MAX_INVITE_TTL = 30 * 86400;

const inviteBody = defineSchema(createInviteBody);
const groupBody = defineSchema(createGroupBody);

export function roomLifecycleRoutes(hub: Hub, archive: ChannelArchive, groups: Groups) {
  return [
    route({
      method: 'POST', path: '/channels/:channel/invites', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Mint a single-use invite token (room admin); the caller delivers it',
      params: channelParams, body: inviteBody,
      handler: async ({ principal: seat, params, body }) => {
        hub.pause.requireOpen(seat);
        const c = hub.channels.requireKnown(params.channel, seat, (ch) => mayAdministerRoom(ch, seat, hub.delegations));
        if (c.is_dm) throw badRequest('direct channels take no invites — they hold exactly their two peers');
        if (!mayAdministerRoom(c, seat, hub.delegations)) {
          throw forbidden(`creating an invite in '${c.name}' needs the channel owner (${ownerLabel(c)}), an operator, or a delegate holding 'ruling', 'operational' or 'proxy' for this room`);
        }
        hub.poster.checkOpen(c);
        const invitee = body.agent_id ?? null;
        if (invitee !== null) {
          const a = hub.agents.live(invitee);
          if (!a || a.retired_at !== null) throw notFound(`agent '${invitee}' is not registered`);
        }
        const ttl = body.ttl_seconds ?? 86400;
        if (!(ttl > 0 && ttl <= MAX_INVITE_TTL)) throw badRequest(`ttl_seconds must be in (0, ${MAX_INVITE_TTL}] — an invite lasts 24 h by default, 30 days at most`);
        return hub.invites.create(c, seat, invitee, ttl);
      },
    }),
    route({
      method: 'POST', path: '/groups', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Create a room with a purpose, invite its members by direct message, post the opening',
      body: groupBody,
      handler: ({ principal: seat, body }) => {
        hub.pause.requireOpen(seat);
        return groups.create(seat, body);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/archive', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Archive a room (owner or operator): members evicted, delisted, history kept',
      params: channelParams, body: emptyBody, bodyKind: 'json',
      handler: ({ principal: seat, params }) => {
        hub.pause.requireOpen(seat);
        return archive.archive(hub.channels.requireKnown(params.channel, seat, (ch) => ch.created_by === seat.id), seat);
      },
    }),
    route({
      method: 'DELETE', path: '/channels/:channel/archive', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Unarchive a room (operator); only the original owner is re-seated',
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        const op = requireOperator(seat, 'only an operator can unarchive a channel — ask one to reopen it, or start a new room');
        return archive.unarchive(hub.channels.require(params.channel), op);
      },
    }),
  ];
}
