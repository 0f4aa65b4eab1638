/**
 * The clock the benchmark injects as `core.clock`: pinned at a chosen time while the definitions are
 * created (nothing comes due), then running at real speed from a chosen origin (so lateness is
 * real: the time an admission happens on this clock minus the time its tick was due on it), then
 * pinned again to count what was due.
 */
import type { Clock } from '@keel/plugin-sdk';

export class BenchClock implements Clock {
  private base: number;
  /** `performance.now()` when the clock started running at `base`; null while it is pinned. */
  private since: number | null = null;

  constructor(pinnedAtMs: number) {
    this.base = pinnedAtMs;
  }

  nowMs(): number {
    return this.since === null ? this.base : this.base + (performance.now() - this.since);
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  /** Runs at real speed from `originMs` (read now). */
  runFrom(originMs: number): void {
    this.base = originMs;
    this.since = performance.now();
  }

  /** Stops where it is; answers the time it stopped at. */
  pin(): number {
    this.base = this.nowMs();
    this.since = null;
    return this.base;
  }

  /** Resolves once the clock reads `ms` or later (real timers; the clock runs at real speed). */
  async reach(ms: number): Promise<void> {
    for (let left = ms - this.nowMs(); left > 0; left = ms - this.nowMs()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, 1000)));
    }
  }
}
