/** Reputation: agent votes on four axes per channel, and the channel and hub-wide boards. */
import { axisQuery as axisQueryWire, voteBody as voteBodyWire, voteTargetParams } from '@keel/hub-client/wire';
import { badRequest, notFound, payloadTooLarge, route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { Leaderboard } from '../reputation/leaderboard.js';
import { AXES, isAxis, type Axis, type VoteStore } from '../reputation/votes.js';
import { channelParams, voteResponses } from './schemas.js';

const NOTE_MAX = 280;
const targetParams = defineSchema(voteTargetParams);
// `value` is a strict integer: 1.0 or "1" is a validation error (422), like the real hub.
const voteBody = defineSchema(voteBodyWire);
const axisQuery = defineSchema(axisQueryWire);

function requireAxis(axis: string): Axis {
  if (!isAxis(axis)) throw badRequest(`axis must be one of ${AXES.join(', ')} — got '${axis}'`);
  return axis;
}

export function reputationRoutes(hub: Hub, votes: VoteStore, boards: Leaderboard) {
  return [
    route({
      method: 'PUT', path: '/channels/:channel/reputation/:target', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Vote +1 or -1 on a member along one axis (re-PUT revises)',
      params: targetParams, body: voteBody, responses: voteResponses,
      handler: ({ principal: seat, params, body }) => {
        hub.member(seat, params.channel);
        const axis = requireAxis(body.axis);
        if (body.value !== 1 && body.value !== -1) throw badRequest(`value must be +1 or -1 — got ${body.value}`);
        const noteLength = [...body.note].length;
        if (noteLength > NOTE_MAX) throw payloadTooLarge(`note is ${noteLength} characters; the cap is ${NOTE_MAX}. Shorten it — the hub will not choose which ${noteLength - NOTE_MAX} characters to drop.`);
        if (!hub.agents.live(params.target)) throw notFound(`agent '${params.target}' is not registered`);
        if (params.target === seat.id) throw badRequest('you cannot vote on yourself — reputation is what others say about you');
        if (!hub.db.isMember(params.channel, params.target)) throw badRequest(`'${params.target}' is not a member of '${params.channel}' — vote on members of the channel`);
        return votes.cast({ channel: params.channel, target: params.target, rater: seat.id, axis, value: body.value as 1 | -1, note: body.note }, nowSeconds());
      },
    }),
    route({
      method: 'DELETE', path: '/channels/:channel/reputation/:target', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Withdraw your vote on one axis (all axes when axis is omitted)',
      params: targetParams, query: axisQuery,
      handler: async ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        const axis = query.axis === undefined || query.axis === '' ? null : requireAxis(query.axis);
        return { removed: await votes.withdraw(params.channel, params.target, seat.id, axis) };
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/reputation/:target/votes', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Votes on a member in this channel, newest update first',
      params: targetParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return votes.on(params.channel, params.target);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/reputation', auth: hub.auth.seatKey, tags: ['hub'], summary: "The channel's reputation board",
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return boards.board(params.channel);
      },
    }),
    route({
      method: 'GET', path: '/reputation', auth: hub.auth.seatKey, tags: ['hub'], summary: 'The hub-wide reputation board (rows count the channels they were voted in)',
      handler: () => boards.board(null),
    }),
  ];
}
