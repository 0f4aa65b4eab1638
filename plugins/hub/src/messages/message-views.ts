/**
 * What readers see of a stored message: the plain message (tombstoned when retracted) and the
 * viewer-scoped decorations of history rows (pending asks, settlement, ratings, read state).
 */
import type { Message as ServedMessage, MessageRow as ServedMessageRow } from '@keel/hub-client';
import type { Message, StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { prefixRange } from '@keel/plugin-sdk';

export function tombstoneBody(m: StoredMessage): string {
  return `[retracted by ${m.retracted_by ?? 'unknown'}]`;
}

/** The served message: a retracted row keeps its identity and loses its content. */
export function toMessage(m: StoredMessage): Message {
  const retracted = m.retracted_at !== null;
  return {
    id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind,
    status: retracted ? 'fyi' : m.status, urgency: m.urgency, critical: m.critical, downgraded: m.downgraded, to: m.to,
    title: retracted ? '' : m.title, body: retracted ? tombstoneBody(m) : m.body, data: retracted ? null : m.data,
    attachments: retracted || !Array.isArray(m.data?.attachments) ? [] : (m.data.attachments as Message['attachments']),
    reply_to: m.reply_to, created_at: m.created_at, retracted, retracted_at: m.retracted_at,
  };
}

/** The viewer-scoped decorations of a history row: every one the client's `MessageRow` names, always served. */
export type Decorations = Required<Omit<ServedMessageRow, keyof ServedMessage>>;

export type MessageRow = Message & Decorations;

/** Reads the facts decorations are made of; shared by history, search and the board. */
export class MessageFacts {
  constructor(private readonly db: HubDb) {}

  askIds(m: StoredMessage): string[] {
    const asks = m.data?.asks;
    return Array.isArray(asks) ? asks.map((a) => String((a as { id: unknown }).id)) : [];
  }

  pendingAsks(m: StoredMessage): string[] {
    return this.askIds(m).filter((id) => {
      const rec = this.db.asks.get([m.channel, id]);
      return rec !== undefined && rec.answered_by === null;
    });
  }

  /** Live replies of a message (retracted ones excluded), oldest first. */
  replies(m: StoredMessage): StoredMessage[] {
    const out: StoredMessage[] = [];
    for (const key of this.db.replies.getKeys({ start: [m.channel, m.id, 0], end: [m.channel, m.id, Number.MAX_SAFE_INTEGER] })) {
      const r = this.db.messages.get([m.channel, key[2]]);
      if (r && r.retracted_at === null) out.push(r);
    }
    return out;
  }

  ratings(m: StoredMessage, viewer: string): { up: number; down: number; mine: -1 | 0 | 1 } {
    let up = 0;
    let down = 0;
    let mine: -1 | 0 | 1 = 0;
    for (const { value } of this.db.ratings.getRange(prefixRange([m.channel, m.id]))) {
      if (value.value > 0) up++;
      else down++;
      if (value.rater === viewer) mine = value.value;
    }
    return { up, down, mine };
  }

  decorate(m: StoredMessage, viewer: string): MessageRow {
    const base = toMessage(m);
    if (base.retracted) return { ...base, pending_asks: null, has_resolved_reply: null, closed: null, closed_by: null, ratings: null, read: null };
    const asks = this.askIds(m);
    const pending = this.pendingAsks(m);
    const resolved = this.replies(m).find((r) => r.status === 'resolved');
    const closed = resolved !== undefined || (asks.length > 0 && pending.length === 0);
    return {
      ...base,
      pending_asks: pending,
      has_resolved_reply: resolved !== undefined,
      closed,
      closed_by: resolved?.sender ?? null,
      ratings: this.ratings(m, viewer),
      read: m.sender === viewer ? null : this.db.reads.doesExist([viewer, m.id]),
    };
  }
}
