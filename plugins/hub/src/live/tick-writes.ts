/**
 * Holds each socket's frames until the current tick is over (its synchronous work and the
 * microtasks it queued), then writes them in one `write` per socket. A durable commit can settle
 * many posts at once; their fan-outs run in the same tick and each socket gets one write (a
 * syscall that also wakes the reader) for all of them, not one per post. Frames keep their order:
 * every data frame of a connection goes through here, so none can overtake another.
 */
export interface FrameSink {
  /** Writes the frames held for this tick, in order. */
  flush(): void;
}

export class TickWrites {
  private readonly held = new Set<FrameSink>();

  /** Asks for `sink.flush()` at the end of this tick (once, however often it is asked). */
  schedule(sink: FrameSink): void {
    if (this.held.has(sink)) return;
    if (this.held.size === 0) process.nextTick(() => this.release());
    this.held.add(sink);
  }

  private release(): void {
    const held = [...this.held];
    this.held.clear();
    for (const sink of held) sink.flush();
  }
}
