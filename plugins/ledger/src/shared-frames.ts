/**
 * Step frames read from the pool, shared by every stream of every run and kept within a byte budget
 * (the least recently used pages leave first). Records never change once written, so a frame read
 * once serves every subscriber that needs it, whenever it needs it.
 *
 * A subscriber asks for the frames after its cursor: frames already read come from here; a read under
 * way for the same run that started just before that cursor is joined rather than repeated; otherwise
 * one page is read, through the fair scheduler. So 200 subscribers replaying the same ledger cost one
 * read per page, not 200.
 */
import type { ReadResult } from './ledger-read-worker.js';
import type { PoolReader } from './fair-reads.js';

export type Frame = [cursor: number, bytes: Buffer];

export interface Page {
  frames: Frame[];
  /** False when the read reached the end of the ledger (as committed when it began). */
  more: boolean;
}

export interface PageLimits {
  /** Records per page. */
  records: number;
  /** Bytes per page (a page holds at least one record, however large). */
  bytes: number;
}

/** Frames inserted together: the unit of eviction. */
interface Group {
  runId: string;
  cursors: number[];
  bytes: number;
}

interface Cached {
  frame: Buffer;
  group: Group;
}

export class SharedFrames {
  private readonly runs = new Map<string, Map<number, Cached>>();
  /** Groups, least recently used first. */
  private readonly recency = new Set<Group>();
  private bytes = 0;
  /** Reads under way, per run and start cursor. */
  private readonly pending = new Map<string, Map<number, Promise<Page>>>();

  constructor(private readonly reader: PoolReader, private readonly limits: PageLimits, private readonly budgetBytes: number) {}

  /** The frames right after `cursor` (one page at most); empty when the ledger has none. */
  async after(runId: string, cursor: number): Promise<Frame[]> {
    const cached = this.cachedAfter(runId, cursor);
    if (cached.length) return cached;
    const nearby = this.pendingNear(runId, cursor);
    if (nearby) {
      const rest = (await nearby).frames.filter(([c]) => c > cursor);
      if (rest.length && rest[0]![0] === cursor + 1) return rest;
    }
    // No read under way covers it (or the one joined stopped short): read it, or join that exact read.
    return (await this.read(runId, cursor)).frames;
  }

  /**
   * Reads the page after `cursor` from the pool. `join`: share a read of the same page already under
   * way. The live tail passes false (its end-of-run test needs a read begun after the terminal mark);
   * its read also goes ahead of the run's replays.
   */
  read(runId: string, cursor: number, join = true): Promise<Page> {
    let reads = this.pending.get(runId);
    const existing = reads?.get(cursor);
    if (existing && join) return existing;
    if (!reads) this.pending.set(runId, (reads = new Map()));
    const page: Promise<Page> = this.readPage(runId, cursor, !join).finally(() => {
      if (reads!.get(cursor) === page) reads!.delete(cursor);
      if (!reads!.size && this.pending.get(runId) === reads) this.pending.delete(runId);
    });
    reads.set(cursor, page);
    return page;
  }

  private async readPage(runId: string, cursor: number, first: boolean): Promise<Page> {
    const result = await this.reader.read({ runId, after: cursor, limit: this.limits.records, maxBytes: this.limits.bytes }, first);
    const frames = split(result);
    this.insert(runId, frames);
    return { frames, more: result.more };
  }

  /** The read under way that started closest before `cursor`, if its page can reach it (by its record count). */
  private pendingNear(runId: string, cursor: number): Promise<Page> | undefined {
    let best: [number, Promise<Page>] | undefined;
    for (const entry of this.pending.get(runId) ?? []) {
      if (entry[0] <= cursor && cursor < entry[0] + this.limits.records && (!best || entry[0] > best[0])) best = entry;
    }
    return best?.[1];
  }

  /** Consecutive cached frames from `cursor + 1`, within the page limits. */
  private cachedAfter(runId: string, cursor: number): Frame[] {
    const frames = this.runs.get(runId);
    const out: Frame[] = [];
    if (!frames) return out;
    let bytes = 0;
    let touched: Group | null = null;
    for (let next = cursor + 1; out.length < this.limits.records && bytes < this.limits.bytes; next++) {
      const hit = frames.get(next);
      if (!hit) break;
      out.push([next, hit.frame]);
      bytes += hit.frame.length;
      if (hit.group !== touched) {
        touched = hit.group;
        this.recency.delete(hit.group);
        this.recency.add(hit.group);
      }
    }
    return out;
  }

  private insert(runId: string, frames: Frame[]): void {
    if (!frames.length) return;
    let cache = this.runs.get(runId);
    if (!cache) this.runs.set(runId, (cache = new Map()));
    const group: Group = { runId, cursors: [], bytes: 0 };
    for (const [cursor, frame] of frames) {
      if (cache.has(cursor)) continue;
      cache.set(cursor, { frame, group });
      group.cursors.push(cursor);
      group.bytes += frame.length;
    }
    if (!group.cursors.length) return;
    this.recency.add(group);
    this.bytes += group.bytes;
    while (this.bytes > this.budgetBytes) this.evict(this.recency.values().next().value!);
  }

  private evict(group: Group): void {
    this.recency.delete(group);
    this.bytes -= group.bytes;
    const cache = this.runs.get(group.runId)!;
    for (const cursor of group.cursors) cache.delete(cursor);
    if (!cache.size) this.runs.delete(group.runId);
  }
}

function split(page: ReadResult): Frame[] {
  const out: Frame[] = [];
  const bytes = Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength);
  let start = 0;
  page.cursors.forEach((cursor, i) => {
    out.push([cursor, bytes.subarray(start, page.ends[i])]);
    start = page.ends[i]!;
  });
  return out;
}
