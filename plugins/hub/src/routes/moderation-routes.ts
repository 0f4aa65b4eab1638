/** Kicks and bans: in one room (`/channels/{c}/blocks`), hub-wide (`/hub/blocks`), and the public list. */
import { blockBody as blockBodyWire, blockedAgentParams, blockListQuery, roomAgentParams as roomAgentParamsWire } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import { HUB_SCOPE, type Blocks } from '../governance/blocks.js';
import type { Hub } from '../hub.js';
import { channelParams } from './schemas.js';
import { mayModerateRoom } from '../governance/room-authority.js';

const blockBody = defineSchema(blockBodyWire);
const roomAgentParams = defineSchema(roomAgentParamsWire);
const agentParams = defineSchema(blockedAgentParams);
const listQuery = defineSchema(blockListQuery);

export function moderationRoutes(hub: Hub, blocks: Blocks) {
  return [
    route({
      method: 'POST', path: '/channels/:channel/blocks', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Kick (seconds, at most 7 days) or ban (no seconds) a seat from a room',
      params: channelParams, body: blockBody,
      handler: ({ principal: seat, params, body }) => {
        return blocks.blockInRoom(hub.channels.requireKnown(params.channel, seat, (c) => mayModerateRoom(c, seat, hub.delegations)), seat, body);
      },
    }),
    route({
      method: 'DELETE', path: '/channels/:channel/blocks/:agent', auth: hub.auth.seatKey, tags: ['hub'], summary: "Lift a seat's block in a room",
      params: roomAgentParams,
      handler: ({ principal: seat, params }) => {
        blocks.requireModerator(hub.channels.requireKnown(params.channel, seat, (c) => mayModerateRoom(c, seat, hub.delegations)), seat);
        return blocks.lift(params.channel, params.agent);
      },
    }),
    route({
      method: 'POST', path: '/hub/blocks', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Kick or ban a seat hub-wide (operator or moderation delegate; closes its live socket)',
      body: blockBody,
      handler: ({ principal: seat, body }) => blocks.blockHub(seat, body),
    }),
    route({
      method: 'DELETE', path: '/hub/blocks/:agent', auth: hub.auth.seatKey, tags: ['hub'], summary: "Lift a seat's hub-wide block",
      params: agentParams,
      handler: ({ principal: seat, params }) => {
        blocks.requireHubModerator(seat);
        return blocks.lift(HUB_SCOPE, params.agent);
      },
    }),
    route({
      method: 'GET', path: '/blocks', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Blocks in force, newest first (`scope` = a channel or `hub`)',
      query: listQuery,
      handler: ({ query }) => blocks.list(query.scope),
    }),
  ];
}
