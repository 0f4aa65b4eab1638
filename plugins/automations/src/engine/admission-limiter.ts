/**
 * No stampede: admissions across all automations are bounded per second (`scheduler.maxAdmissionsPerSecond`).
 * A token bucket on the process's monotonic clock (not the injectable one: it protects this machine,
 * whatever time the schedules read).
 */
export class AdmissionLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.last = now();
  }

  /** Takes one admission when one is left this second; false means wait (`waitMs()`). */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until the next admission is allowed (0 when one is). */
  waitMs(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.perSecond) * 1000);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) / 1000) * this.perSecond);
    this.last = now;
  }
}
