/**
 * Remote discovery answers, kept for the TTL (reference B.9 "TTL"). Only answers are kept: a failed
 * probe is tried again on the next listing. A probe still running is shared by every listing that
 * asks meanwhile, and a probe that lands after its listing's budget ran out is still stored, so the
 * next listing gets it at once.
 */

interface Entry<T> {
  value: T;
  at: number;
}

export class DiscoveryCache {
  private readonly answers = new Map<string, Entry<unknown>>();
  private readonly running = new Map<string, Promise<unknown>>();

  /** `clock` answers milliseconds; tests pass their own to age answers without waiting. */
  constructor(private readonly clock: () => number = Date.now) {}

  /** The stored answer when younger than `ttlS`, else the (shared) probe's promise. */
  get<T>(key: string, ttlS: number, probe: () => Promise<T>): { cached: true; value: T } | { cached: false; promise: Promise<T> } {
    const entry = this.answers.get(key);
    if (entry && this.clock() - entry.at < ttlS * 1000) return { cached: true, value: entry.value as T };
    let promise = this.running.get(key) as Promise<T> | undefined;
    if (!promise) {
      promise = probe().then(
        (value) => {
          this.answers.set(key, { value, at: this.clock() });
          this.running.delete(key);
          return value;
        },
        (err: unknown) => {
          this.running.delete(key);
          throw err;
        },
      );
      // A probe nobody awaits any more (its listing's budget ran out) must not be an unhandled rejection.
      promise.catch(() => {});
      this.running.set(key, promise);
    }
    return { cached: false, promise };
  }

  /** Forgets every answer (the reference's `refresh_profiles()`), or those whose key starts with `prefix`. */
  clear(prefix?: string): void {
    for (const key of [...this.answers.keys()]) if (prefix === undefined || key.startsWith(prefix)) this.answers.delete(key);
  }
}
