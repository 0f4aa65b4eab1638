/**
 * An in-memory candidate index over `kind: message` rows, so a search reads only the messages that
 * can match instead of every channel's whole transcript.
 *
 * Each word is filed under its first three characters (shorter words under themselves); a query
 * term looks up its own three-character bucket, or, when shorter, every bucket it prefixes. The
 * index only nominates candidates: the search re-reads each one from the database and re-checks
 * it (membership scope, retraction, the real prefix match), so a stale entry can cost a read but
 * never a wrong hit. It is built on the first search and kept current from the live bus, which
 * carries every committed insert and tombstone.
 */
import type { LiveBus } from '../live/live-bus.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { words } from './text-match.js';

const BUCKET = 3;

export interface IndexedRef {
  channel: string;
  seq: number;
}

export class MessageIndex {
  /** bucket → ids of documents holding a word filed there (ascending, append-only). */
  private buckets = new Map<string, number[]>();
  private docs: IndexedRef[] = [];
  /** message id → document id, for every filed message. */
  private known = new Map<string, number>();
  /** Ids filed and since retracted: still in the buckets (the search re-checks), no longer counted as indexed. */
  private retracted = new Set<string>();
  private built = false;
  private subscribed = false;

  constructor(private readonly db: HubDb, private readonly live: LiveBus) {}

  /** Documents that may contain a word starting with `term` (lowercase). */
  candidates(term: string): IndexedRef[] {
    this.ensureBuilt();
    if (term.length >= BUCKET) return (this.buckets.get(term.slice(0, BUCKET)) ?? []).map((id) => this.docs[id]!);
    const ids = new Set<number>();
    for (const [key, list] of this.buckets) if (key.startsWith(term)) for (const id of list) ids.add(id);
    return [...ids].sort((a, b) => a - b).map((id) => this.docs[id]!);
  }

  /** Live messages the index holds (for `GET /admin/search/drift`). */
  indexedCount(): number {
    this.ensureBuilt();
    return this.known.size - this.retracted.size;
  }

  /** Drops everything and re-reads every message (`POST /admin/search/rebuild`); the number indexed. */
  rebuild(): number {
    this.buckets = new Map();
    this.docs = [];
    this.known = new Map();
    this.retracted = new Set();
    this.built = false;
    return this.indexedCount();
  }

  private ensureBuilt(): void {
    if (this.built) return;
    this.built = true;
    // Subscribe first: a row committed during the scan arrives twice and is filed once.
    if (!this.subscribed) this.live.subscribe((m) => this.add(m));
    this.subscribed = true;
    for (const { value } of this.db.messages.getRange()) this.add(value);
  }

  private add(m: StoredMessage): void {
    if (typeof m.erased_at === 'number') return this.forget(m.id);
    if (m.retracted_at !== null && this.known.has(m.id)) this.retracted.add(m.id);
    if (m.kind !== 'message' || m.retracted_at !== null || this.known.has(m.id)) return;
    const id = this.docs.push({ channel: m.channel, seq: m.seq }) - 1;
    this.known.set(m.id, id);
    const keys = new Set(words(`${m.title} ${m.body}`).map((w) => w.lower.slice(0, BUCKET)));
    for (const key of keys) {
      const list = this.buckets.get(key);
      if (list) list.push(id);
      else this.buckets.set(key, [id]);
    }
  }

  /** Erasure: no bucket may keep a word prefix of an erased message. */
  private forget(messageId: string): void {
    const id = this.known.get(messageId);
    if (id === undefined) return;
    for (const [key, list] of this.buckets) {
      const kept = list.filter((doc) => doc !== id);
      if (kept.length === 0) this.buckets.delete(key);
      else if (kept.length !== list.length) this.buckets.set(key, kept);
    }
  }
}
