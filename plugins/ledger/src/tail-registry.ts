/** The shared tails of streamed runs: made with the first subscriber, dropped with the last. */
import type { LedgerStore } from './ledger-store.js';
import { RunTail, type TailReader, type TailSubscriber } from './run-tail.js';

export class TailRegistry {
  private readonly tails = new Map<string, RunTail>();

  constructor(private readonly store: LedgerStore, private readonly reader: TailReader) {}

  open(runId: string): RunTail {
    let tail = this.tails.get(runId);
    if (!tail) {
      tail = new RunTail(runId, this.reader, this.store.count(runId));
      this.tails.set(runId, tail);
    }
    return tail;
  }

  close(runId: string, subscriber: TailSubscriber): void {
    const tail = this.tails.get(runId);
    if (!tail) return;
    tail.detach(subscriber);
    if (tail.size === 0) this.tails.delete(runId);
  }
}
