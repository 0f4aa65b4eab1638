/** The inbox and its explicit acknowledgement. */
import { inboxAckBody, inboxQuery as inboxQueryWire } from '@keel/hub-client/wire';
import { badRequest, route, defineSchema } from '@keel/plugin-sdk';
import type { InboxWaits } from '../attention/inbox-waits.js';
import type { Hub } from '../hub.js';

const ackBody = defineSchema(inboxAckBody);
const inboxQuery = defineSchema(inboxQueryWire);

export function inboxRoutes(hub: Hub, waits: InboxWaits) {
  return [
    route({
      method: 'GET', path: '/inbox', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Unread envelopes and pinned obligations of every member channel (never acknowledges); `wait` long-polls up to 55 s',
      query: inboxQuery,
      handler: async ({ principal: seat, koa, query, signal }) => {
        const rows = await waits.wait(seat.id, query.wait, signal, () => hub.reading.inbox(seat.id));
        // A client that does not identify itself is probably outdated: say so once, never stored.
        if (rows.length && !koa.get('x-hub-client') && !koa.get('x-agora-client')) {
          const first = rows[0]!;
          rows.push({ ...first, id: `notice-${first.id}`, sender: 'hub', kind: 'system', status: 'fyi', title: 'HUB NOTICE: your client sent no X-Hub-Client header — it may be outdated', body: 'Upgrade the client; this notice is not stored.', data: null, attachments: [], pending_asks: [], your_pending_asks: [], retracted: false });
        }
        return rows;
      },
    }),
    route({
      method: 'POST', path: '/inbox/ack', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Set inbox cursors: `{channel, seq}` or `{cursors: {channel: seq}}`',
      body: ackBody,
      handler: async ({ principal: seat, body }) => {
        const cursors: Record<string, number> = { ...(body.cursors ?? {}) };
        if (body.channel !== undefined) {
          if (body.seq === undefined) throw badRequest('ack needs seq with channel: {channel, seq}');
          cursors[body.channel] = body.seq;
        }
        if (!Object.keys(cursors).length) throw badRequest('nothing to acknowledge — send {channel, seq} or {cursors: {<channel>: <seq>}}');
        const acked = await hub.reading.ack(seat.id, cursors, (c) => void hub.channels.requireMember(c, seat.id));
        return { acked };
      },
    }),
  ];
}
