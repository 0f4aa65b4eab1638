/** The verbatim ledger: the whole ordered transcript of a channel with its chain head. */
import { ledgerKeyResponse, ledgerQuery as ledgerQueryWire } from '@keel/hub-client/wire';
import type { Ledger, LedgerTurn } from '@keel/hub-client';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { HeadSigner } from '../chain/head-signer.js';
import { verifyChannel } from '../chain/verify-channel.js';
import type { Hub } from '../hub.js';
import { toMessage } from '../messages/message-views.js';
import { channelParams } from './schemas.js';

const ledgerQuery = defineSchema(ledgerQueryWire);

export function ledgerRoutes(hub: Hub, signer: HeadSigner) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/ledger', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Ordered transcript and chain head (hub-verified unless verify=false)',
      params: channelParams, query: ledgerQuery,
      handler: ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        const turns: LedgerTurn[] = [];
        let head = '';
        let keelHead = '';
        for (const { value: m } of hub.db.messages.getRange({ start: [params.channel, 1], end: [params.channel, Number.MAX_SAFE_INTEGER] })) {
          const served = toMessage(m);
          turns.push({
            seq: m.seq, id: m.id, sender: m.sender, kind: m.kind, status: served.status, urgency: m.urgency, critical: m.critical ? 1 : 0,
            downgraded: m.downgraded ? 1 : 0, to: m.to, title: served.title, body: served.body, data: served.data, reply_to: m.reply_to,
            created_at: m.created_at, hash: m.hash, retracted: served.retracted,
            // Keel's additions, which reference clients ignore: erasure and the redactable chain.
            erased: typeof m.erased_at === 'number', content_hash: m.content_hash ?? null,
            content_salt: served.retracted ? null : m.content_salt ?? null, keel_hash: m.keel_hash ?? null,
          });
          head = m.hash;
          if (m.keel_hash) keelHead = m.keel_hash;
          else keelHead = ''; // a row from before Keel's chain restarts it
        }
        const answer: Ledger = { channel: params.channel, count: turns.length, head, turns };
        answer.keel_head = keelHead;
        answer.signature = signer.sign({ channel: params.channel, count: turns.length, head, keel_head: keelHead });
        if (query.verify) Object.assign(answer, verifyChannel(hub.db, params.channel));
        return answer;
      },
    }),
    route({
      method: 'GET', path: '/ledger/key', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: "The hub's Ed25519 public key that signs ledger heads",
      responses: { 200: { schema: defineSchema(ledgerKeyResponse) } },
      handler: () => signer.publicKey,
    }),
  ];
}
