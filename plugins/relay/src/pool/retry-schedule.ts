/**
 * The retry schedule around whole pool passes (reference §3.9): `retryAttempts` retries after the
 * first pass, waiting `retryBackoffSeconds[i]` before retry i+1 (the last value repeats; an empty
 * list means no wait). Only 429 and 5xx are retried: never a client error (reference §8 item 5).
 */

export function isRetriable(status: number): boolean {
  return status === 429 || status >= 500;
}

export class RetrySchedule {
  constructor(readonly retries: number, private readonly delays: number[]) {}

  /** Seconds to wait before retry `n` (1-based). */
  delayBefore(n: number): number {
    if (this.delays.length === 0) return 0;
    return this.delays[Math.min(n - 1, this.delays.length - 1)]!;
  }

  /** Seconds of every wait still ahead, from retry `n` (1-based) to the last. */
  remainingFrom(n: number): number {
    let total = 0;
    for (let i = n; i <= this.retries; i++) total += this.delayBefore(i);
    return total;
  }
}
