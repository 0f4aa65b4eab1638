/**
 * One tail per streamed run and process, shared by all its subscribers: when an append wakes it,
 * it reads the new records once (in the `ledger-read` worker pool), keeps their frames in a recent
 * window, and hands the same bytes to every subscriber at its own cursor. A subscriber behind the
 * window (a resume from an old cursor) reads its backlog from the pool first.
 */
import type { ReadResult, ReadTask } from './ledger-read-worker.js';

export interface TailReader {
  read(task: ReadTask): Promise<ReadResult>;
}

export interface TailSubscriber {
  cursor: number;
  /** Writes a frame; false when the subscriber is gone. */
  send(frame: Buffer): boolean;
  /** Called after each delivery (the stream checks for its `done`). */
  delivered(): void;
}

const WINDOW = 2048;
const PAGE = 500;

export class RunTail {
  private readonly frames = new Map<number, Buffer>();
  private readonly subscribers = new Set<TailSubscriber>();
  private head: number;
  private reading: Promise<void> | null = null;
  private again = false;
  private terminal: boolean;
  private done = false;

  constructor(private readonly runId: string, private readonly reader: TailReader, startAt: number, terminal: boolean) {
    this.head = startAt;
    this.terminal = terminal;
  }

  /** True once the run has ended and every record it wrote has been read: `done` may follow. */
  get complete(): boolean {
    return this.done;
  }

  /** The run ended: read what is left, then the tail is complete. */
  markTerminal(): void {
    this.terminal = true;
    this.wake();
  }

  get size(): number {
    return this.subscribers.size;
  }

  /** The highest cursor this tail has read. */
  get cursor(): number {
    return this.head;
  }

  async attach(sub: TailSubscriber): Promise<void> {
    // Backlog first, straight from the pool, until the subscriber reaches the tail's window.
    while (sub.cursor < this.head && !this.frames.has(sub.cursor + 1)) {
      const page = await this.reader.read({ runId: this.runId, after: sub.cursor, limit: PAGE });
      if (!page.cursors.length) break;
      if (!this.deliver(sub, split(page))) return;
    }
    this.subscribers.add(sub);
    this.catchUp(sub);
    sub.delivered();
    this.wake();
  }

  detach(sub: TailSubscriber): void {
    this.subscribers.delete(sub);
  }

  /** An append happened (or a cursor we may lack was announced): read what is new, once, for everyone. */
  wake(cursor?: number): void {
    if (cursor !== undefined && cursor <= this.head && !this.terminal) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readNew().finally(() => {
      this.reading = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async readNew(): Promise<void> {
    // The terminal mark is written after the run's last record: a read begun after it sees them all.
    const terminalBefore = this.terminal;
    for (;;) {
      const page = await this.reader.read({ runId: this.runId, after: this.head, limit: PAGE });
      if (page.cursors.length < PAGE && terminalBefore) this.done = true;
      for (const [cursor, frame] of split(page)) {
        this.frames.set(cursor, frame);
        this.head = cursor;
        if (this.frames.size > WINDOW) this.frames.delete(this.frames.keys().next().value as number);
      }
      if (page.cursors.length === 0 && !this.done) return;
      for (const sub of [...this.subscribers]) {
        this.catchUp(sub);
        sub.delivered();
      }
      if (page.cursors.length < PAGE) return;
    }
  }

  private catchUp(sub: TailSubscriber): void {
    while (sub.cursor < this.head) {
      const frame = this.frames.get(sub.cursor + 1);
      if (!frame) return;
      if (!sub.send(frame)) {
        this.subscribers.delete(sub);
        return;
      }
      sub.cursor++;
    }
  }

  private deliver(sub: TailSubscriber, frames: Array<[number, Buffer]>): boolean {
    for (const [cursor, frame] of frames) {
      if (cursor <= sub.cursor) continue;
      if (!sub.send(frame)) return false;
      sub.cursor = cursor;
    }
    return true;
  }
}

function split(page: ReadResult): Array<[number, Buffer]> {
  const out: Array<[number, Buffer]> = [];
  const bytes = Buffer.from(page.bytes.buffer, page.bytes.byteOffset, page.bytes.byteLength);
  let start = 0;
  page.cursors.forEach((cursor, i) => {
    out.push([cursor, bytes.subarray(start, page.ends[i])]);
    start = page.ends[i]!;
  });
  return out;
}
