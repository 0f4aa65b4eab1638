/** The verbatim ledger: the whole ordered transcript of a channel with its chain head. */
import { ledgerQuery as ledgerQueryWire } from '@keel/hub-client/wire';
import type { Ledger, LedgerTurn } from '@keel/hub-client';
import { route, defineSchema } from '@keel/plugin-sdk';
import { verifyChannel } from '../chain/verify-channel.js';
import type { Hub } from '../hub.js';
import { toMessage } from '../messages/message-views.js';
import { channelParams } from './schemas.js';

const ledgerQuery = defineSchema(ledgerQueryWire);

export function ledgerRoutes(hub: Hub) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/ledger', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Ordered transcript and chain head (hub-verified unless verify=false)',
      params: channelParams, query: ledgerQuery,
      handler: ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        const turns: LedgerTurn[] = [];
        let head = '';
        for (const { value: m } of hub.db.messages.getRange({ start: [params.channel, 1], end: [params.channel, Number.MAX_SAFE_INTEGER] })) {
          const served = toMessage(m);
          turns.push({
            seq: m.seq, id: m.id, sender: m.sender, kind: m.kind, status: served.status, urgency: m.urgency, critical: m.critical ? 1 : 0,
            downgraded: m.downgraded ? 1 : 0, to: m.to, title: served.title, body: served.body, data: served.data, reply_to: m.reply_to,
            created_at: m.created_at, hash: m.hash, retracted: served.retracted,
          });
          head = m.hash;
        }
        const answer: Ledger = { channel: params.channel, count: turns.length, head, turns };
        if (query.verify) Object.assign(answer, verifyChannel(hub.db, params.channel));
        return answer;
      },
    }),
  ];
}
