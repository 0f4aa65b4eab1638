/**
 * The shared tails of streamed runs: made with the first subscriber, dropped with the last. Each
 * tail listens to the hub once for its run (appends and the terminal mark), whatever the number
 * of subscribers.
 */
import type { LedgerStore } from './ledger-store.js';
import type { LiveBusMessage, LedgerLiveBus } from './live-bus.js';
import { RunTail, type TailSubscriber } from './run-tail.js';
import type { SharedFrames } from './shared-frames.js';

interface Entry {
  tail: RunTail;
  unsubscribe: () => void;
}

export class TailRegistry {
  private readonly tails = new Map<string, Entry>();

  constructor(private readonly store: LedgerStore, private readonly hub: LedgerLiveBus, private readonly frames: SharedFrames) {}

  open(runId: string): RunTail {
    const existing = this.tails.get(runId);
    if (existing) return existing.tail;
    const meta = this.store.runMeta(runId);
    // An end this process is still committing counts once it is published (its commit acknowledged), not when first readable.
    const terminal = (meta?.terminal ?? false) && !this.store.endingNow(runId);
    const tail = new RunTail(runId, this.frames, this.store.count(runId), terminal);
    const unsubscribe = this.hub.subscribe(meta?.root_run_id ?? runId, (message: LiveBusMessage) => {
      if (message.type === 'live' || message.run_id !== runId) return;
      if (message.type === 'append') tail.wake(message.cursor);
      else tail.markTerminal();
    });
    this.tails.set(runId, { tail, unsubscribe });
    return tail;
  }

  close(runId: string, subscriber: TailSubscriber): void {
    const entry = this.tails.get(runId);
    if (!entry) return;
    entry.tail.detach(subscriber);
    if (entry.tail.size === 0) {
      entry.unsubscribe();
      this.tails.delete(runId);
    }
  }
}
