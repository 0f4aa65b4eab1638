/**
 * Who owes an answer to an ask. The ask's own `to` wins (it may narrow a message sent to several
 * seats); otherwise the message's `to`; otherwise, in a direct channel, the peer. An unaddressed
 * ask in a room is open to anyone, so nobody in particular owes it. The asker never owes itself.
 */
import type { AskRecord, StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { prefixRange } from '@keel/plugin-sdk';

export function askAddressees(db: HubDb, ask: AskRecord, m: StoredMessage): string[] {
  let seats = ask.to.length ? ask.to : m.to;
  if (!seats.length && m.channel.startsWith('dm:')) seats = db.membersOf(m.channel).map((mem) => mem.agent_id);
  return seats.filter((s) => s !== m.sender);
}

/** The asks of one message that are still in the ask table, in the order the message lists them. */
export interface MessageAsks {
  message: StoredMessage;
  asks: Array<{ id: string; record: AskRecord }>;
}

/**
 * Every live message of a channel that carries asks, with its ask records. Reads the ask table
 * (one row per ask) rather than the transcript, so it costs what the obligations cost, not the
 * channel's length. Retracted messages are skipped: their obligations died with them.
 */
export function asksByMessage(db: HubDb, channel: string): MessageAsks[] {
  const bySeq = new Map<number, Map<string, AskRecord>>();
  for (const { key, value } of db.asks.getRange(prefixRange([channel]))) {
    let group = bySeq.get(value.seq);
    if (!group) bySeq.set(value.seq, (group = new Map()));
    group.set(key[1], value);
  }
  const out: MessageAsks[] = [];
  for (const [seq, records] of [...bySeq].sort((a, b) => a[0] - b[0])) {
    const message = db.messages.get([channel, seq]);
    if (!message || message.retracted_at !== null || message.kind !== 'message') continue;
    const listed = Array.isArray(message.data?.asks) ? (message.data.asks as Array<{ id: unknown }>).map((a) => String(a.id)) : [];
    const order = [...listed.filter((id) => records.has(id)), ...[...records.keys()].filter((id) => !listed.includes(id))];
    out.push({ message, asks: order.map((id) => ({ id, record: records.get(id)! })) });
  }
  return out;
}
