/**
 * Per-seat token buckets for the hub's rate budgets (search 30/min burst 10, message ratings
 * 30/min): a seat may spend `burst` at once, then tokens come back at a steady rate. Buckets live in
 * memory; a restart forgives everyone, which is fine for a pacing rule.
 */
import { tooManyRequests } from '@keel/plugin-sdk';

interface Bucket {
  tokens: number;
  at: number;
}

export interface BudgetOptions {
  perMinute: number;
  burst: number;
  /** Builds the 429 sentence from the whole seconds to wait. */
  refusal: (retrySeconds: number) => string;
  /** Milliseconds clock (tests may pass their own). */
  now?: () => number;
}

/** Full buckets are forgotten once this many keys exist, so idle seats do not pile up. */
const SWEEP_AT = 10_000;

export class TokenBucket {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly now: () => number;

  constructor(private readonly options: BudgetOptions) {
    this.perMs = options.perMinute / 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Spends one token of `key`, or throws 429 with the wait in whole seconds (also as `Retry-After`). */
  take(key: string): void {
    const now = this.now();
    const bucket = this.refill(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
    throw tooManyRequests(this.options.refusal(wait), { headers: { 'retry-after': String(wait) } });
  }

  private refill(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= SWEEP_AT) this.sweep(now);
      bucket = { tokens: this.options.burst, at: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) * this.perMs >= this.options.burst) this.buckets.delete(key);
  }
}
