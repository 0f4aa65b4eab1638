/**
 * The loaded window of one channel's history, keyed by seq. History pages are oldest first with
 * an exclusive `since`, so the newest window starts at `last_seq − WINDOW`; a refresh re-reads a
 * tail (new rows, fresh rating tallies, tombstones) and single rows are read with
 * `since = seq − 1, limit = 1`. Only one read runs at a time; a request during a read runs once after it.
 */
import type { MessageRow, TeamHub } from './hub-types.js';

export const WINDOW = 200;
export const TAIL = 50;
const MAX_PAGES = 5;

export class ChannelHistory {
  private readonly rows = new Map<number, MessageRow>();
  private inFlight: Promise<void> | null = null;
  private again = false;

  constructor(private readonly hub: TeamHub, readonly channel: string) {}

  /** Loaded rows in seq order. */
  list(): MessageRow[] {
    return [...this.rows.values()].sort((a, b) => a.seq - b.seq);
  }

  get newest(): number {
    let max = 0;
    for (const seq of this.rows.keys()) if (seq > max) max = seq;
    return max;
  }

  has(seq: number): boolean {
    return this.rows.has(seq);
  }

  byId(id: string): MessageRow | undefined {
    for (const row of this.rows.values()) if (row.id === id) return row;
    return undefined;
  }

  /** Loads the newest window; `lastSeq` comes from the channel's `/channels` row. */
  async loadLatest(lastSeq: number): Promise<void> {
    await this.read(Math.max(0, lastSeq - WINDOW));
  }

  /** Re-reads the tail (and a single older row when `seq` names one outside it). */
  refresh(seq?: number): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      try {
        do {
          this.again = false;
          const since = Math.max(0, this.newest - TAIL);
          if (seq !== undefined && seq > 0 && seq <= since) await this.readOne(seq);
          await this.read(since);
        } while (this.again);
      } finally {
        this.inFlight = null;
      }
    })();
    return this.inFlight;
  }

  /** Reads one row by seq (for a search hit or tombstone outside the loaded window). */
  async readOne(seq: number): Promise<MessageRow | undefined> {
    const page = await this.hub.messages(this.channel, { since: Math.max(0, seq - 1), limit: 1 });
    for (const row of page) this.fold(row);
    return page.find((row) => row.seq === seq);
  }

  /** Merges a row the page got elsewhere (a post or retract answer), keeping known decorations. */
  fold(row: MessageRow): void {
    if (row.channel && row.channel !== this.channel) return;
    const old = this.rows.get(row.seq);
    // A tombstone's decorations are void (no tallies, no obligation), whatever was loaded before.
    if (row.retracted) this.rows.set(row.seq, { ...old, ...row, ratings: null, pending_asks: null });
    else this.rows.set(row.seq, old ? { ...old, ...definedOnly(row) } : row);
  }

  private async read(since: number): Promise<void> {
    let cursor = since;
    for (let page = 0; page < MAX_PAGES; page++) {
      const rows = await this.hub.messages(this.channel, { since: cursor, limit: WINDOW });
      for (const row of rows) this.fold(row);
      if (rows.length < WINDOW) return;
      cursor = rows[rows.length - 1]!.seq;
    }
  }
}

function definedOnly(row: MessageRow): Partial<MessageRow> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (value !== undefined) out[key] = value;
  return out as Partial<MessageRow>;
}
