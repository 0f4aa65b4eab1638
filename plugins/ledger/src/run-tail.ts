/**
 * One tail per streamed run and process, shared by all its subscribers. When an append wakes it, it
 * reads the new records once (a page at a time, through the shared frames and the fair scheduler)
 * and writes the same bytes to every subscriber that is caught up and whose socket keeps up.
 *
 * A subscriber behind the tail (a resume from an old cursor, or one whose socket backed up) catches
 * up on its own: it waits for its socket to drain, takes the next page of shared frames, writes it,
 * and so on, then rejoins the live subscribers. Nothing is buffered for it beyond one page in its
 * socket, and subscribers replaying the same backlog share its reads.
 */
import type { Frame, SharedFrames } from './shared-frames.js';

export interface TailSubscriber {
  cursor: number;
  /** False once the subscriber's stream has closed. */
  readonly open: boolean;
  /** True while its socket holds more than it wants: write nothing more until `drained()`. */
  readonly backedUp: boolean;
  drained(): Promise<void>;
  /** Writes a frame; false when the subscriber is gone. */
  send(frame: Buffer): boolean;
  /** Called after each delivery (the stream checks for its `done`). */
  delivered(): void;
  /** Ends the stream (the client resumes from its last id). */
  close(): void;
}

export class RunTail {
  private readonly subscribers = new Set<TailSubscriber>();
  /** Subscribers at the head whose sockets keep up: new frames are written to them at once. */
  private readonly live = new Set<TailSubscriber>();
  /** Subscribers catching up on their own. */
  private readonly behind = new Set<TailSubscriber>();
  private head: number;
  private reading: Promise<void> | null = null;
  private again = false;
  private terminal: boolean;
  private done = false;

  constructor(private readonly runId: string, private readonly frames: SharedFrames, startAt: number, terminal: boolean) {
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

  attach(sub: TailSubscriber): void {
    this.subscribers.add(sub);
    this.follow(sub);
    this.wake();
  }

  detach(sub: TailSubscriber): void {
    this.subscribers.delete(sub);
    this.live.delete(sub);
  }

  /** An append happened (or a cursor we may lack was announced): read what is new, once, for everyone. */
  wake(cursor?: number): void {
    if (cursor !== undefined && cursor <= this.head && !this.terminal) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readNew()
      .catch(() => {
        // A failed read (storage trouble): end the streams; clients resume from their last id.
        for (const sub of [...this.subscribers]) sub.close();
      })
      .finally(() => {
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
      const page = await this.frames.read(this.runId, this.head, false);
      const last = page.frames.at(-1)?.[0];
      if (last !== undefined && last > this.head) this.head = last;
      if (!page.more && terminalBefore) this.done = true;
      if (!page.frames.length && !this.done) return;
      for (const sub of [...this.live]) this.deliverLive(sub, page.frames);
      if (!page.more) return;
    }
  }

  /** Live if caught up and keeping up; otherwise catching up on its own. */
  private follow(sub: TailSubscriber): void {
    if (!sub.open || !this.subscribers.has(sub)) {
      this.live.delete(sub);
      return;
    }
    if (sub.cursor >= this.head && !sub.backedUp) {
      this.live.add(sub);
      sub.delivered();
      return;
    }
    this.live.delete(sub);
    if (this.behind.has(sub)) return;
    this.behind.add(sub);
    this.catchUp(sub)
      .catch(() => sub.close())
      .finally(() => {
        this.behind.delete(sub);
        this.follow(sub);
      });
  }

  private async catchUp(sub: TailSubscriber): Promise<void> {
    let page: Frame[] = [];
    let at = 0;
    while (sub.open) {
      if (sub.backedUp) await sub.drained();
      if (!sub.open || sub.cursor >= this.head) return;
      while (at < page.length && page[at]![0] <= sub.cursor) at++;
      if (at === page.length) {
        page = await this.frames.after(this.runId, sub.cursor);
        at = 0;
        // Nothing after its cursor although the tail is ahead cannot happen with a dense ledger; do not spin.
        if (!page.length) return sub.close();
      }
      write(sub, page, at);
      sub.delivered();
    }
  }

  private deliverLive(sub: TailSubscriber, frames: Frame[]): void {
    // Stopped early (its socket backed up, a gap, or it is gone): it continues on its own from its cursor.
    if (!write(sub, frames)) this.follow(sub);
    sub.delivered();
  }
}

/**
 * Writes the frames after the subscriber's cursor, in order, while its socket keeps up; true when all
 * were written, false when it stopped early (backed up, a gap, or the subscriber is gone).
 */
function write(sub: TailSubscriber, frames: Frame[], from = 0): boolean {
  for (let i = from; i < frames.length; i++) {
    const [cursor, frame] = frames[i]!;
    if (cursor <= sub.cursor) continue;
    if (sub.backedUp || cursor !== sub.cursor + 1 || !sub.send(frame)) return false;
    sub.cursor = cursor;
  }
  return true;
}
