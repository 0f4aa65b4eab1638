/**
 * Failed authentication per source address: every bad key is counted and logged, and a source that
 * has failed `burst` times within a window is refused with 429 (and Retry-After) until the window
 * ends, before its next key is even checked. Successes are never counted or slowed.
 * Synchronous on purpose: plugins that check keys of their own call it on their own sync paths.
 */
import { tooManyRequests, type Logger } from '@keel/plugin-sdk';
import type { AuthFailuresConfig } from '../config/kernel-config.js';

interface Window {
  failures: number;
  endsAt: number;
}

export class AuthFailureCounter {
  private readonly windows = new Map<string, Window>();
  private nextSweepAt = 0;

  constructor(private readonly settings: AuthFailuresConfig, private readonly log: Logger, private readonly nowMs: () => number = Date.now) {}

  /** Throws 429 when `source` has used up its failures for the current window. */
  refuseIfThrottled(source: string): void {
    const window = this.current(source);
    if (!window || window.failures < this.settings.burst) return;
    const retryAfter = Math.max(1, Math.ceil((window.endsAt - this.nowMs()) / 1000));
    throw tooManyRequests(
      `Too many failed sign-ins from ${source}: ${window.failures} in ${this.settings.windowMs / 1000} s. Try again in ${retryAfter} s with a valid token.`,
      { code: 'too_many_auth_failures', headers: { 'retry-after': String(retryAfter) } },
    );
  }

  /** Counts and logs one failed authentication (an unknown or revoked key) from `source`. */
  record(source: string, what: string): void {
    const now = this.nowMs();
    this.sweep(now);
    let window = this.current(source);
    if (!window) {
      window = { failures: 0, endsAt: now + this.settings.windowMs };
      this.windows.set(source, window);
    }
    window.failures += 1;
    const fields = { source, failures: window.failures, burst: this.settings.burst, what };
    if (window.failures === this.settings.burst) this.log.warn('authentication failures reached the burst; refusing this source until its window ends', fields);
    else this.log.warn('authentication failed', fields);
  }

  private current(source: string): Window | undefined {
    const window = this.windows.get(source);
    if (window && window.endsAt <= this.nowMs()) {
      this.windows.delete(source);
      return undefined;
    }
    return window;
  }

  /** Forgets ended windows, at most once per window length, so the map stays bounded by recent sources. */
  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.settings.windowMs;
    for (const [source, window] of this.windows) if (window.endsAt <= now) this.windows.delete(source);
  }
}
