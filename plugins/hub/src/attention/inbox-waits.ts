/**
 * `GET /inbox?wait=<seconds>` (reference §8.1 B4): a long-poll over the inbox. A non-empty inbox
 * answers at once (pinned obligations count, so a seat with standing debts never waits);
 * otherwise the request parks until a row is committed anywhere on the hub (posts, notices, fs
 * audit rows, retractions: everything the live bus carries), recomputes, and answers as soon as
 * the inbox is non-empty, or `[]` at the deadline. It also recomputes every `recheckSeconds`
 * (time alone can change an inbox: a block expires). Bounded: at most `maxPerSeat` parked waits
 * per seat (429 beyond), and a wait ends with `[]` when its request's signal aborts — the client
 * went away or the kernel is stopping — so shutdown never waits on a long-poll.
 */
import type { Envelope } from '@keel/hub-client';
import { tooManyRequests } from '@keel/plugin-sdk';
import type { LiveBus } from '../live/live-bus.js';

export interface InboxWaitLimits {
  /** Parked long-polls one seat may hold at once. */
  maxPerSeat: number;
  /** Seconds between recomputations while nothing wakes a wait. */
  recheckSeconds: number;
}

export class InboxWaits {
  /** Resolvers of parked waits; a committed row resolves (and clears) them all. */
  private sleepers = new Set<() => void>();
  private readonly perSeat = new Map<string, number>();

  constructor(live: LiveBus, private readonly limits: InboxWaitLimits) {
    live.subscribe(() => this.wakeAll());
  }

  /** Parked waits now (all seats). */
  get parked(): number {
    return this.sleepers.size;
  }

  async wait(seat: string, seconds: number, signal: AbortSignal, compute: () => Envelope[]): Promise<Envelope[]> {
    const first = compute();
    if (first.length || seconds <= 0 || signal.aborted) return first;
    const held = this.perSeat.get(seat) ?? 0;
    if (held >= this.limits.maxPerSeat) {
      throw tooManyRequests(`'${seat}' already holds ${held} waiting inbox requests; the cap is ${this.limits.maxPerSeat}. Let one return before opening another — a single wait sees everything that arrives.`);
    }
    this.perSeat.set(seat, held + 1);
    try {
      const deadline = Date.now() + seconds * 1000;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) return [];
        await this.sleep(Math.min(left, this.limits.recheckSeconds * 1000), signal);
        if (signal.aborted) return [];
        const rows = compute();
        if (rows.length) return rows;
      }
    } finally {
      const now = (this.perSeat.get(seat) ?? 1) - 1;
      if (now > 0) this.perSeat.set(seat, now);
      else this.perSeat.delete(seat);
    }
  }

  private wakeAll(): void {
    if (!this.sleepers.size) return;
    const woken = this.sleepers;
    this.sleepers = new Set();
    for (const wake of woken) wake();
  }

  /** Until a row is committed, `ms` pass, or the signal aborts. */
  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.sleepers.add(done);
    });
  }
}
