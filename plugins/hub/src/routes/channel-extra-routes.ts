/**
 * Per-channel reads and acts of reference §8.5: the room charter's receipts, a file's history, a row
 * by seq, a message's ratings, closing a thread, handing the room over. Every one runs the
 * membership gate first (a private room is a 404 to outsiders), except the owner transfer, whose
 * caller need not be a member.
 */
import {
  bySeqParams as bySeqParamsWire, charterReceiptsResponse, fileParams as fileParamsWire, fsHistoryQuery, messageRatingsResponse, messageRowResponse,
  resolveThreadBody, resolveThreadResponse, transferOwnerBody, transferOwnerResponse,
} from '@keel/hub-client/wire';
import { prefixRange, defineSchema, notFound, route } from '@keel/plugin-sdk';
import { ROOM_CHARTER_PATH, requireValidPath } from '../content/fs/fs-paths.js';
import type { HubContent } from '../content/hub-content.js';
import type { OwnershipTransfer } from '../governance/ownership-transfer.js';
import type { Hub } from '../hub.js';
import { toMessage } from '../messages/message-views.js';
import type { ThreadCloser } from '../messages/thread-closer.js';
import type { RatingRecord } from '../records.js';
import { channelParams, messageParams } from './schemas.js';

const bySeqParams = defineSchema(bySeqParamsWire);
const fileParams = defineSchema(fileParamsWire);
const historyQuery = defineSchema(fsHistoryQuery);
const closeBody = defineSchema(resolveThreadBody);
const ownerBody = defineSchema(transferOwnerBody);
const responds = (schema: object) => ({ 200: { schema: defineSchema(schema as typeof messageRowResponse) } });

/** How a refusal names a message id (an oversized id is cut, as the reference does). */
function cut(id: string): string {
  return [...id].slice(0, 40).join('');
}

export function channelExtraRoutes(hub: Hub, content: HubContent, threads: ThreadCloser, ownership: OwnershipTransfer) {
  const limits = hub.config.reads;
  return [
    route({
      method: 'GET', path: '/channels/:channel/charter/receipts', auth: hub.auth.seatKey, tags: ['hub'], summary: "Who has read the room charter's current version",
      params: channelParams, responses: responds(charterReceiptsResponse),
      handler: ({ principal: seat, params }) => {
        const { channel: c } = hub.member(seat, params.channel);
        const head = content.roomCharters.head(c.name)?.version ?? 0;
        // Join order, as the reference's storage order happens to be.
        const members = hub.db.membersOf(c.name).sort((a, b) => a.joined_at - b.joined_at || a.agent_id.localeCompare(b.agent_id)).map((m) => {
          const version = content.roomCharters.receipt(c.name, m.agent_id);
          return { agent_id: m.agent_id, role: m.role, version, read_at: version === null ? null : content.roomCharters.receiptTime(c.name, m.agent_id), current: version !== null && version >= head };
        });
        return { channel: c.name, path: ROOM_CHARTER_PATH, version: head, gated: content.meta(c.name)?.norms_required === true, members };
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/fshist/*path', auth: hub.auth.seatKey, tags: ['hub'], summary: "A file's history: its fs audit rows (writes and deletes), oldest first",
      params: fileParams, query: historyQuery,
      handler: ({ principal: seat, params, query }) => {
        const { channel: c } = hub.member(seat, params.channel);
        const path = requireValidPath(params.path);
        // The reference checks the limit after appending, so a limit of 0 or less still returns the first match.
        const limit = Math.min(query.limit, limits.fsHistoryMaxRows);
        const rows = [];
        for (const { value: m } of hub.db.messages.getRange({ start: [c.name, query.since_seq + 1], end: [c.name, Number.MAX_SAFE_INTEGER], limit: limits.fsHistoryScanRows })) {
          if (m.kind !== 'fs' || m.data?.path !== path) continue;
          rows.push(toMessage(m));
          if (rows.length >= limit) break;
        }
        return rows;
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/messages/by-seq/:seq', auth: hub.auth.seatKey, tags: ['hub'], summary: 'One history row by its seq (records no read)',
      params: bySeqParams, responses: responds(messageRowResponse),
      handler: ({ principal: seat, params }) => {
        const { channel: c } = hub.member(seat, params.channel);
        const m = hub.db.messages.get([c.name, params.seq]);
        if (!m) throw notFound(`no message #${params.seq} in '${c.name}'`);
        return hub.facts.decorate(m, seat.id);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/messages/:id/ratings', auth: hub.auth.seatKey, tags: ['hub'], summary: "A message's ratings, newest update first",
      params: messageParams, responses: responds(messageRatingsResponse),
      handler: ({ principal: seat, params }) => {
        const { channel: c } = hub.member(seat, params.channel);
        const m = hub.db.messageById(params.id);
        if (!m || m.channel !== c.name) throw notFound(`message '${cut(params.id)}' not found in '${c.name}'`);
        // A retracted message's ratings were cleared on the reference; here they are kept but never served.
        if (m.retracted_at !== null) return [];
        const rows: RatingRecord[] = [...hub.db.ratings.getRange(prefixRange([c.name, m.id]))].map((e) => e.value);
        return rows.sort((a, b) => b.updated_at - a.updated_at || a.rater.localeCompare(b.rater));
      },
    }),
    route({
      method: 'POST', path: '/channels/:channel/messages/:id/resolve_thread', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Close every open row of a thread with a resolved reply from the caller',
      params: messageParams, body: closeBody, bodyKind: 'json', responses: responds(resolveThreadResponse),
      handler: ({ principal: seat, params, body }) => {
        const { channel: c } = hub.member(seat, params.channel);
        return threads.resolve(c, params.id, seat, body?.body ?? '');
      },
    }),
    route({
      method: 'PUT', path: '/channels/:channel/owner', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Hand the room over to another member (owner, operator or ruling/operational/proxy delegate)',
      params: channelParams, body: ownerBody, responses: responds(transferOwnerResponse),
      handler: ({ principal: seat, params, body }) => ownership.transfer(params.channel, body.to, seat),
    }),
  ];
}
