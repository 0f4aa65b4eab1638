/** Messages: history, post, read, retract (message and thread), ratings, direct messages. */
import { historyQuery as historyQueryWire, messageRatingBody, peerParams as peerParamsWire, postMessageBody } from '@keel/hub-client/wire';
import { badRequest, conflict, forbidden, notFound, reply, route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { TokenBucket } from '../limits/token-bucket.js';
import { toMessage } from '../messages/message-views.js';
import { channelParams, emptyBody, historyResponses, messageParams, messageResponses, retractThreadResponses } from './schemas.js';

const historyQuery = defineSchema(historyQueryWire);
export const postBody = defineSchema(postMessageBody);
const ratingBody = defineSchema(messageRatingBody);
const peerParams = defineSchema(peerParamsWire);

/** Browsers send these `Sec-Fetch-Dest` values for passive subresources (an <img src> must not mark a message read). */
const PASSIVE_DESTINATIONS = new Set(['image', 'audio', 'video', 'font', 'object', 'embed', 'track', 'style', 'script', 'manifest', 'worker', 'sharedworker', 'serviceworker', 'audioworklet', 'paintworklet', 'report', 'xslt']);

export function messageRoutes(hub: Hub) {
  const ratingBudget = new TokenBucket({ perMinute: 30, burst: 30, refusal: (s) => `rating budget exhausted (30/min) — retry in ${s}s` });
  return [
    route({
      method: 'GET', path: '/channels/:channel/messages', auth: hub.auth.seatKey, tags: ['hub'], summary: 'History: rows with seq > since, oldest first (or top rated with sort=votes)',
      params: channelParams, query: historyQuery, responses: historyResponses,
      handler: ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        if (query.sort === 'votes') return hub.reading.topRated(params.channel, seat.id, Math.min(query.limit, 200));
        if (query.sort !== 'recency') throw badRequest("sort must be 'recency' or 'votes'");
        return hub.reading.history(params.channel, seat.id, query.since, query.limit);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Post a message',
      params: channelParams, body: postBody, responses: messageResponses,
      handler: async ({ principal: seat, params, body }) => {
        const { channel: c } = hub.member(seat, params.channel);
        return toMessage(await hub.poster.post(c, seat, body));
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/messages/:id', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Read a message (records a read; unread ancestors first)',
      params: messageParams,
      handler: ({ principal: seat, koa, params }) => {
        hub.member(seat, params.channel);
        const dest = koa.get('sec-fetch-dest');
        if (dest && PASSIVE_DESTINATIONS.has(dest)) throw forbidden(`a message is not a '${dest}' subresource — reading records a read, so only an explicit request may do it`);
        return hub.reading.read(params.channel, params.id, seat.id);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages/:id/retract', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Retract a message (author or operator; idempotent)',
      params: messageParams, body: emptyBody, bodyKind: 'json', responses: messageResponses,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return hub.retraction.retractMessage(params.channel, params.id, seat);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages/:id/retract_thread', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Retract a message and all its replies, or nothing',
      params: messageParams, body: emptyBody, bodyKind: 'json', responses: retractThreadResponses,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return hub.retraction.retractThread(params.channel, params.id, seat);
      },
    }),
    route({
      method: 'PUT', path: '/channels/:channel/messages/:id/rating', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Rate a message +1 or -1 (one standing rating per rater)',
      params: messageParams, body: ratingBody,
      handler: async ({ principal: seat, params, body }) => {
        hub.member(seat, params.channel);
        if (body.value !== 1 && body.value !== -1) throw badRequest('value must be +1 or -1 — a rating is a thumb up or down');
        const m = hub.db.messageById(params.id);
        if (!m || m.channel !== params.channel) throw notFound(`message '${params.id}' not found in '${params.channel}'`);
        if (m.kind !== 'message') throw badRequest(`'${m.kind}' rows cannot be rated — rate what a seat said`);
        if (m.sender === seat.id) throw badRequest('you cannot rate your own message');
        if (m.retracted_at !== null) throw conflict('this message was retracted — it takes no new ratings');
        ratingBudget.take(seat.id);
        const key: [string, string, string] = [params.channel, params.id, seat.id];
        const now = nowSeconds();
        const before = hub.db.ratings.get(key);
        const row = { channel: params.channel, message_id: params.id, rater: seat.id, target: m.sender, value: body.value as 1 | -1, note: body.note, created_at: before?.created_at ?? now, updated_at: now };
        await hub.db.ratings.put(key, row);
        return row;
      },
    }),
    route({
      method: 'DELETE', path: '/channels/:channel/messages/:id/rating', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Withdraw your rating of a message',
      params: messageParams,
      handler: async ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return { removed: (await hub.db.ratings.remove([params.channel, params.id, seat.id])) ? 1 : 0 };
      },
    }),
    route({
      method: 'POST', path: '/dms/:peer/messages', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Send a direct message (the channel is created on first use)',
      params: peerParams, body: postBody, responses: messageResponses,
      handler: async ({ principal: seat, params, body }) => {
        if (params.peer === seat.id) throw badRequest('a direct message needs another seat — you cannot DM yourself');
        const peer = hub.agents.live(params.peer);
        if (!peer) throw notFound(`agent '${params.peer}' is not registered`);
        if (peer.retired_at !== null) throw notFound(`agent '${params.peer}' has been retired`);
        hub.poster.spend(seat);
        const m = await hub.writer.run((w) => {
          const c = hub.channels.ensureDmIn(w, seat, peer);
          for (const gate of hub.poster.gates) gate(c, seat);
          return hub.poster.postIn(w, c, seat, { status: 'open', ...body, to: body.to?.length ? body.to : [peer.id] });
        });
        return reply(200, toMessage(m));
      },
    }),
  ];
}
