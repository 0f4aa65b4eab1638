/**
 * `GET /inbox?wait=<seconds>` (reference §8.1 B4): a long-poll over the inbox. A non-empty inbox
 * answers at once (pinned obligations count, so a seat with standing debts never waits);
 * otherwise the request parks until a row is committed (posts, notices, fs audit rows,
 * retractions: everything the live bus carries) in one of the seat's channels by someone else,
 * recomputes, and answers as soon as the inbox is non-empty, or `[]` at the deadline. Rows
 * elsewhere cannot change its inbox (the reference wakes on them only to wait again); it also
 * recomputes every `recheckSeconds`, since time and hub-wide acts (a block lifted) can too. Bounded: at most `maxPerSeat` parked waits
 * per seat (429 beyond), and a wait ends with `[]` when its request's signal aborts — the client
 * went away or the kernel is stopping — so shutdown never waits on a long-poll.
 */
import type { Envelope } from '@keel/hub-client';
import { tooManyRequests } from '@keel/plugin-sdk';
import type { LiveBus } from '../live/live-bus.js';
import type { StoredMessage } from '../records.js';

export interface InboxWaitLimits {
  /** Parked long-polls one seat may hold at once. */
  maxPerSeat: number;
  /** Seconds between recomputations while nothing wakes a wait. */
  recheckSeconds: number;
}

export class InboxWaits {
  /** Resolvers of parked waits by seat; a committed row the seat may see resolves (and clears) its own. */
  private readonly sleepers = new Map<string, Set<() => void>>();
  private readonly perSeat = new Map<string, number>();

  /** `concerns`: whether a committed row can change the seat's inbox (a row in one of its channels, not its own). */
  constructor(live: LiveBus, private readonly limits: InboxWaitLimits, private readonly concerns: (seat: string, m: StoredMessage) => boolean) {
    live.subscribe((m) => this.wake(m));
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
        await this.sleep(seat, Math.min(left, this.limits.recheckSeconds * 1000), signal);
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

  private wake(m: StoredMessage): void {
    for (const [seat, wakes] of this.sleepers) {
      if (!this.concerns(seat, m)) continue;
      this.sleepers.delete(seat);
      for (const wake of wakes) wake();
    }
  }

  /** Until a row that concerns the seat is committed, `ms` pass, or the signal aborts. */
  private sleep(seat: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const wakes = this.sleepers.get(seat);
        wakes?.delete(done);
        if (wakes?.size === 0) this.sleepers.delete(seat);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      let wakes = this.sleepers.get(seat);
      if (!wakes) this.sleepers.set(seat, (wakes = new Set()));
      wakes.add(done);
    });
  }
}
