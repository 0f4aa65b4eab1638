/**
 * One remembered discovery answer (B.9 TTL): re-probed once older than the TTL; concurrent callers
 * share one probe in flight; a failed probe is not remembered.
 */
export class TtlValue<T> {
  private value: T | undefined;
  private at = 0;
  private inflight: Promise<T> | undefined;

  constructor(private readonly ttlMs: number) {}

  async get(probe: () => Promise<T>, refresh = false): Promise<T> {
    if (!refresh && this.value !== undefined && Date.now() - this.at < this.ttlMs) return this.value;
    if (!refresh && this.inflight) return this.inflight;
    const running = probe().then(
      (value) => {
        this.value = value;
        this.at = Date.now();
        if (this.inflight === running) this.inflight = undefined;
        return value;
      },
      (error: unknown) => {
        if (this.inflight === running) this.inflight = undefined;
        throw error;
      },
    );
    this.inflight = running;
    return running;
  }

  clear(): void {
    this.value = undefined;
    this.inflight = undefined;
  }
}
