/** A counting gate: at most `slots` holders at once and at most `queue` waiting; beyond that, busy. */
import { VoiceError } from '@keel/voice';

export class Gate {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(private readonly slots: number, private readonly queue: number) {}

  /** Resolves with a release function once a slot is free; throws 503 `busy` when the queue is full. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.active < this.slots) {
      this.active++;
      return this.releaser();
    }
    if (this.waiting.length >= this.queue) {
      throw new VoiceError('pocketsphinx is busy: too many transcriptions are waiting. Try again shortly.', 503, 'busy');
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        resolve, reject, signal,
        onAbort: () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) {
        // The slot passes straight to the next waiter: `active` stays the same.
        next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve();
      } else {
        this.active--;
      }
    };
  }
}
