/**
 * The engine's stored rows beside each automation record: occurrences `(id, index)`, attention
 * items `(id, seq)`, per-account seen cursors `(account, id) → seq`, and the events already fired
 * `(id, event_id)` (each event fires an automation once). Writes are plain `put`s meant to run
 * inside the store's transaction that also changes the record (see AutomationEngine), so a record
 * and its rows never disagree after a crash.
 */
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { AttentionRecord, OccurrenceRecord } from '../model.js';

export class OccurrenceLog {
  private readonly occurrences: Database<OccurrenceRecord, [string, number]>;
  private readonly attention: Database<AttentionRecord, [string, number]>;
  private readonly seen: Database<number, [string, string]>;
  private readonly firedEvents: Database<string, [string, string]>;

  constructor(storage: PluginStorage) {
    this.occurrences = storage.openDB<OccurrenceRecord, [string, number]>('occurrences');
    this.attention = storage.openDB<AttentionRecord, [string, number]>('attention');
    this.seen = storage.openDB<number, [string, string]>('attention-seen');
    this.firedEvents = storage.openDB<string, [string, string]>('fired-events');
  }

  occurrence(automationId: string, index: number): OccurrenceRecord | undefined {
    return this.occurrences.get([automationId, index]);
  }

  /** Writes an occurrence row (inside the caller's transaction). */
  putOccurrence(row: OccurrenceRecord): void {
    void this.occurrences.put([row.automation_id, row.index], row);
  }

  /** Rows newest first, indexes below `before` (exclusive) when given. */
  *newestFirst(automationId: string, before: number | null): Generator<OccurrenceRecord> {
    const range = prefixRange([automationId], { reverse: true });
    const start = before === null ? range.start : [automationId, before];
    for (const { value } of this.occurrences.getRange({ ...range, start, inclusiveEnd: true })) {
      if (before !== null && value.index >= before) continue;
      yield value;
    }
  }

  /** The newest occurrence that ran (skipped rows left out), looking back at most `lookBack` rows. */
  lastRun(automationId: string, lookBack = 50): OccurrenceRecord | null {
    let seen = 0;
    for (const row of this.newestFirst(automationId, null)) {
      if (row.status !== 'skipped') return row;
      if (++seen >= lookBack) break;
    }
    return null;
  }

  putAttention(item: AttentionRecord): void {
    void this.attention.put([item.automation_id, item.seq], item);
  }

  /** Attention items with a sequence above `after`, oldest first. */
  *attentionAfter(automationId: string, after: number): Generator<AttentionRecord> {
    const range = prefixRange([automationId]);
    for (const { value } of this.attention.getRange({ ...range, start: [automationId, after + 1] })) yield value;
  }

  seenSeq(account: string, automationId: string): number {
    return this.seen.get([account, automationId]) ?? 0;
  }

  /** Stores max(stored, seq) and answers the stored sequence. */
  async markSeen(account: string, automationId: string, seq: number): Promise<number> {
    return this.seen.transaction(() => {
      const stored = Math.max(this.seenSeq(account, automationId), seq);
      void this.seen.put([account, automationId], stored);
      return stored;
    });
  }

  eventFired(automationId: string, eventId: string): boolean {
    return this.firedEvents.get([automationId, eventId]) !== undefined;
  }

  /** Records that an event fired (inside the caller's transaction). */
  putEventFired(automationId: string, eventId: string, at: string): void {
    void this.firedEvents.put([automationId, eventId], at);
  }
}
