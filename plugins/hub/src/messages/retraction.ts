/**
 * Retraction (seed §3): a message becomes a tombstone on every surface, its obligations die and the
 * asks it answered reopen; the stored bytes stay so the hash chain still verifies. A thread is
 * retracted whole, in one transaction, or not at all.
 */
import type { RetractThreadResult } from '@keel/hub-client';
import { prefixRange, forbidden, notFound } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, Message, StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { HubWriter, WriteScope } from './hub-writer.js';
import { toMessage } from './message-views.js';

const NOT_YOURS = 'only the author (or an operator) can retract a message — you can retract what YOU said, not what others said';

export class Retraction {
  constructor(private readonly db: HubDb, private readonly writer: HubWriter) {}

  async retractMessage(channel: string, id: string, by: AgentRecord): Promise<Message> {
    const m = this.find(channel, id);
    if (m.kind !== 'message' && !by.operator) throw forbidden(`'${m.kind}' rows are the hub's record — only an operator can retract them`);
    if (m.sender !== by.id && !by.operator) throw forbidden(NOT_YOURS);
    if (m.retracted_at !== null) return toMessage(m);
    return this.writer.run((w) => toMessage(this.tombstoneIn(w, m, by.id)));
  }

  async retractThread(channel: string, id: string, by: AgentRecord): Promise<RetractThreadResult> {
    const root = this.find(channel, id);
    const trail = this.trail(root);
    const others = [...new Set(trail.filter((m) => m.kind === 'message' && m.sender !== by.id).map((m) => m.sender))].sort();
    if (!by.operator && others.length) {
      throw forbidden(`only the author (or an operator) can retract a message — this trail has ${others.length} other author(s) (${others.join(', ')}), so NOTHING was retracted. Retract your own messages one by one, or ask an operator.`);
    }
    return this.writer.run((w) => {
      const result: RetractThreadResult = { channel, root: root.id, count: 0, already_retracted: [], skipped_non_messages: [], messages: [] };
      for (const m of trail) {
        const current = this.db.messages.get([channel, m.seq])!;
        if (current.kind !== 'message') {
          result.skipped_non_messages.push(current.id);
          continue;
        }
        if (current.retracted_at !== null) {
          result.already_retracted.push(current.id);
          continue;
        }
        result.messages.push(toMessage(this.tombstoneIn(w, current, by.id)));
        result.count++;
      }
      return result;
    });
  }

  private find(channel: string, id: string): StoredMessage {
    const m = this.db.messageById(id);
    if (!m || m.channel !== channel) throw notFound(`message '${id}' not found in '${channel}'`);
    return m;
  }

  /** The message and all its descendants, in seq order. */
  private trail(root: StoredMessage): StoredMessage[] {
    const out: StoredMessage[] = [];
    const queue = [root];
    while (queue.length) {
      const m = queue.shift()!;
      out.push(m);
      for (const key of this.db.replies.getKeys({ start: [m.channel, m.id, 0], end: [m.channel, m.id, Number.MAX_SAFE_INTEGER] })) {
        const child = this.db.messages.get([m.channel, key[2]]);
        if (child) queue.push(child);
      }
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  private tombstoneIn(w: WriteScope, m: StoredMessage, by: string): StoredMessage {
    const retracted: StoredMessage = { ...m, retracted_at: nowSeconds(), retracted_by: by };
    this.db.messages.put([m.channel, m.seq], retracted);
    // Its own asks die; asks it answered wait for an answer again.
    for (const ask of Array.isArray(m.data?.asks) ? (m.data.asks as Array<{ id: string }>) : []) this.db.asks.remove([m.channel, ask.id]);
    for (const id of Array.isArray(m.data?.answers) ? (m.data.answers as string[]) : []) {
      const ask = this.db.asks.get([m.channel, id]);
      if (ask?.answer_id === m.id) this.db.asks.put([m.channel, id], { ...ask, answered_by: null, answer_id: null, answer_seq: null, answered_at: null, declined: false, consumed: false });
    }
    for (const { key } of this.db.ratings.getRange(prefixRange([m.channel, m.id]))) this.db.ratings.remove(key);
    w.changed(retracted);
    return retracted;
  }
}
