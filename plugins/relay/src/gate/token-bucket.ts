/**
 * Request rate per client address (reference §1.1 step 4): a bucket of `burst` tokens refilled at
 * `perMinute / 60` per second; a request takes one, and is refused when less than one is left.
 * Runs before the token check, so unauthenticated traffic spends the bucket too.
 */
import type { Clock } from '@keel/plugin-sdk';
import { MAX_TRACKED_ADDRESSES } from './failed-auth-block.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private nextSweepAt = 0;

  constructor(perMinute: number, private readonly burst: number, private readonly clock: Clock) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token; false when fewer than one is left. */
  take(ip: string): boolean {
    const now = this.clock.nowMs();
    this.sweep(now);
    const bucket = this.refilled(ip, now);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    if (!this.buckets.has(ip) && this.buckets.size >= MAX_TRACKED_ADDRESSES) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(ip, bucket);
    return true;
  }

  /** Tokens left for the address now (whole tokens). */
  remaining(ip: string): number {
    return Math.floor(this.refilled(ip, this.clock.nowMs()).tokens);
  }

  get tracked(): number {
    return this.buckets.size;
  }

  private refilled(ip: string, now: number): Bucket {
    const bucket = this.buckets.get(ip);
    if (!bucket) return { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket;
  }

  /** Forgets full buckets (a fresh one is the same) once per refill period: bounded by recent callers. */
  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.burst / this.perMs;
    for (const [ip, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.burst) this.buckets.delete(ip);
    }
  }
}
