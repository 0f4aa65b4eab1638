/**
 * Bad relay tokens per client address (reference §1.1 step 5): `maxAttempts` failures within
 * `windowSeconds` block the address for `blockSeconds`; a blocked address is refused before its
 * token is looked at. Successes never reset or slow anything.
 */
import type { Clock } from '@keel/plugin-sdk';

export interface FailedAuthSettings {
  windowSeconds: number;
  maxAttempts: number;
  blockSeconds: number;
}

interface Entry {
  /** Times (ms) of the failures still inside the window, oldest first. */
  failures: number[];
  blockedUntil: number;
}

/** Addresses tracked at most: past it the oldest entry goes (only a spray of forged addresses gets there). */
export const MAX_TRACKED_ADDRESSES = 100_000;

export class FailedAuthBlock {
  private readonly entries = new Map<string, Entry>();
  private nextSweepAt = 0;

  constructor(private readonly settings: FailedAuthSettings, private readonly clock: Clock) {}

  /** Whole seconds the address stays blocked (0: not blocked). */
  blockedFor(ip: string): number {
    const entry = this.entries.get(ip);
    if (!entry) return 0;
    const left = entry.blockedUntil - this.clock.nowMs();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Counts one failure; says whether it blocked the address. */
  record(ip: string): { blocked: boolean; blockSeconds: number } {
    const now = this.clock.nowMs();
    this.sweep(now);
    let entry = this.entries.get(ip);
    if (!entry) {
      if (this.entries.size >= MAX_TRACKED_ADDRESSES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(ip, (entry = { failures: [], blockedUntil: 0 }));
    }
    entry.failures = this.inWindow(entry, now);
    entry.failures.push(now);
    if (entry.failures.length < this.settings.maxAttempts) return { blocked: false, blockSeconds: 0 };
    entry.failures = [];
    entry.blockedUntil = now + this.settings.blockSeconds * 1000;
    return { blocked: true, blockSeconds: this.settings.blockSeconds };
  }

  /** Failures inside the window (for the status page's client block). */
  attempts(ip: string): number {
    const entry = this.entries.get(ip);
    return entry ? this.inWindow(entry, this.clock.nowMs()).length : 0;
  }

  get tracked(): number {
    return this.entries.size;
  }

  get blocked(): number {
    const now = this.clock.nowMs();
    let n = 0;
    for (const entry of this.entries.values()) if (entry.blockedUntil > now) n += 1;
    return n;
  }

  private inWindow(entry: Entry, now: number): number[] {
    const since = now - this.settings.windowSeconds * 1000;
    return entry.failures.filter((t) => t > since);
  }

  /** Forgets addresses with no block and no failure in the window, at most once per window: the map stays bounded by recent offenders. */
  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.settings.windowSeconds * 1000;
    for (const [ip, entry] of this.entries) {
      if (entry.blockedUntil <= now && this.inWindow(entry, now).length === 0) this.entries.delete(ip);
    }
  }
}
