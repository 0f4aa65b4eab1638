/** Messages: history, post, read, retract (message and thread), ratings, direct messages. */
import { badRequest, conflict, forbidden, notFound, reply, route, schema } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { TokenBucket } from '../limits/token-bucket.js';
import { toMessage } from '../messages/message-views.js';
import type { PostArgs } from '../messages/post-message.js';
import { channelParams, emptyBody, messageParams } from './schemas.js';

const historyQuery = schema<{ since: number; limit: number; sort: string }>({
  type: 'object',
  properties: { since: { type: 'integer', minimum: 0, default: 0 }, limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 }, sort: { type: 'string', default: 'recency' } },
});
const stringList = { type: 'array', items: { type: 'string' } } as const;
export const postBody = schema<PostArgs>({
  type: 'object',
  properties: {
    body: { type: 'string' }, title: { type: 'string' }, status: { type: 'string' }, urgency: { type: 'string' }, critical: { type: 'boolean' },
    to: stringList, data: { type: ['object', 'null'] }, reply_to: { type: ['string', 'null'] },
    asks: { type: 'array', items: { type: 'object' } }, answers: stringList, declines: stringList, consumes: stringList,
    attachments: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 }, filename: { type: 'string' } } } },
  },
  examples: [{ title: 'hello', body: 'first post', status: 'open', asks: [{ text: 'anyone here?' }] }],
});
const ratingBody = schema<{ value: number; note: string }>({ type: 'object', required: ['value'], properties: { value: { type: 'integer' }, note: { type: 'string', default: '' } } });
const peerParams = schema<{ peer: string }>({ type: 'object', required: ['peer'], properties: { peer: { type: 'string', minLength: 1, maxLength: 200 } } });

/** Browsers send these `Sec-Fetch-Dest` values for passive subresources (an <img src> must not mark a message read). */
const PASSIVE_DESTINATIONS = new Set(['image', 'audio', 'video', 'font', 'object', 'embed', 'track', 'style', 'script', 'manifest', 'worker', 'sharedworker', 'serviceworker', 'audioworklet', 'paintworklet', 'report', 'xslt']);

export function messageRoutes(hub: Hub) {
  const ratingBudget = new TokenBucket({ perMinute: 30, burst: 30, refusal: (s) => `rating budget exhausted (30/min) — retry in ${s}s` });
  return [
    route({
      method: 'GET', path: '/channels/:channel/messages', auth: hub.auth.seatKey, tags: ['hub'], summary: 'History: rows with seq > since, oldest first (or top rated with sort=votes)',
      params: channelParams, query: historyQuery,
      handler: ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        if (query.sort === 'votes') return hub.reading.topRated(params.channel, seat.id, Math.min(query.limit, 200));
        if (query.sort !== 'recency') throw badRequest("sort must be 'recency' or 'votes'");
        return hub.reading.history(params.channel, seat.id, query.since, query.limit);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Post a message',
      params: channelParams, body: postBody,
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
      params: messageParams, body: emptyBody, bodyKind: 'json',
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return hub.retraction.retractMessage(params.channel, params.id, seat);
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages/:id/retract_thread', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Retract a message and all its replies, or nothing',
      params: messageParams, body: emptyBody, bodyKind: 'json',
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
      params: peerParams, body: postBody,
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
