/**
 * Reading state: history pages, explicit reads (which record a read and un-pin criticals), the
 * inbox and its cursors. Acknowledging is always explicit (`POST /inbox/ack`), never a side
 * effect of rendering.
 */
import type { Envelope } from '@keel/hub-client';
import { badRequest, notFound } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';
import type { Message, StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { PinnedObligations } from '../attention/pinned-obligations.js';
import type { EnvelopeBuilder } from './envelope.js';
import { toMessage, type MessageFacts, type MessageRow } from './message-views.js';

const INBOX_PER_CHANNEL = 100;
const MAX_UNREAD_ANCESTORS = 5;

export class Reading {
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts, private readonly envelopes: EnvelopeBuilder, private readonly pinned?: PinnedObligations) {}

  /** Rows with `seq > since`, oldest first, at most `limit`. */
  history(channel: string, viewer: string, since: number, limit: number): MessageRow[] {
    const rows: MessageRow[] = [];
    for (const { value } of this.db.messages.getRange({ start: [channel, since + 1], end: [channel, Number.MAX_SAFE_INTEGER], limit })) {
      rows.push(this.facts.decorate(value, viewer));
    }
    return rows;
  }

  /** `sort=votes`: rated, live `message` rows of the whole channel, net rating desc then newest first. */
  topRated(channel: string, viewer: string, limit: number): MessageRow[] {
    const rated: Array<{ row: MessageRow; net: number }> = [];
    for (const { value } of this.db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
      if (value.kind !== 'message' || value.retracted_at !== null) continue;
      const row = this.facts.decorate(value, viewer);
      if (row.ratings && row.ratings.up + row.ratings.down > 0) rated.push({ row, net: row.ratings.up - row.ratings.down });
    }
    return rated.sort((a, b) => b.net - a.net || b.row.seq - a.row.seq).slice(0, limit).map((r) => r.row);
  }

  /** Unread ancestors (at most 5, oldest first) then the message; records a read for each. */
  async read(channel: string, id: string, viewer: string): Promise<Message[]> {
    const m = this.db.messageById(id);
    if (!m || m.channel !== channel) throw notFound(`message '${id}' not found in '${channel}'`);
    const chain: StoredMessage[] = [m];
    for (let at = m.reply_to ? this.db.messageById(m.reply_to) : undefined; at && chain.length <= MAX_UNREAD_ANCESTORS; at = at.reply_to ? this.db.messageById(at.reply_to) : undefined) {
      if (at.sender === viewer || this.db.reads.doesExist([viewer, at.id])) break;
      chain.unshift(at);
    }
    const now = nowSeconds();
    await this.db.transaction(() => {
      for (const row of chain) if (!this.db.reads.doesExist([viewer, row.id])) this.db.reads.put([viewer, row.id], now);
    });
    return chain.map(toMessage);
  }

  /**
   * Unread rows per member channel (not the viewer's own), with sticky unread criticals and the
   * pinned obligations whatever the cursor says (reference §8.1 B1); criticals first.
   */
  inbox(viewer: string): Envelope[] {
    const critical: Envelope[] = [];
    const rest: Envelope[] = [];
    const pinned = this.pinned?.forViewer(viewer);
    for (const channel of this.db.channelsOf(viewer)) {
      const cursor = this.db.cursors.get([viewer, channel]) ?? 0;
      let taken = 0;
      // One pass over the channel: the transcript is read once, whatever the cursor.
      for (const { value: m } of this.db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
        if (m.sender === viewer) continue;
        if (m.seq > cursor && taken < INBOX_PER_CHANNEL) {
          taken++;
          rest.push(this.envelopes.build(m, viewer));
        } else if (m.retracted_at === null && m.critical && !this.db.reads.doesExist([viewer, m.id])) {
          critical.push(this.envelopes.build(m, viewer));
        } else if (pinned?.(m)) {
          rest.push(this.envelopes.build(m, viewer));
        }
      }
    }
    const byArrival = (a: Envelope, b: Envelope) => a.created_at - b.created_at || a.seq - b.seq;
    const restCritical = rest.filter((e) => e.critical);
    return [...critical, ...restCritical].sort(byArrival).concat(rest.filter((e) => !e.critical).sort(byArrival));
  }

  /** Sets (not maxes) each cursor, clamped to the channel head. */
  async ack(viewer: string, cursors: Record<string, number>, requireMember: (channel: string) => void): Promise<Record<string, number>> {
    const acked: Record<string, number> = {};
    for (const [channel, seq] of Object.entries(cursors)) {
      if (!Number.isInteger(seq) || seq < 0) throw badRequest(`cursor for '${channel}' must be a non-negative integer seq`);
      requireMember(channel);
      acked[channel] = Math.min(seq, this.db.lastSeq(channel));
    }
    await this.db.transaction(() => {
      for (const [channel, seq] of Object.entries(acked)) this.db.cursors.put([viewer, channel], seq);
    });
    return acked;
  }
}
