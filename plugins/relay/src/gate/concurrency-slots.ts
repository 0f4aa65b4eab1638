/**
 * Requests in flight per client address (reference §1.1 step 3). A slot is held until the
 * response ends, streams included: stricter than the origin, which freed it when a stream started.
 */
export class ConcurrencySlots {
  private readonly active = new Map<string, number>();

  constructor(private readonly perIp: number) {}

  /** Takes a slot; false when the address already has `perIp` requests in flight. */
  take(ip: string): boolean {
    const n = this.active.get(ip) ?? 0;
    if (n >= this.perIp) return false;
    this.active.set(ip, n + 1);
    return true;
  }

  release(ip: string): void {
    const n = this.active.get(ip) ?? 0;
    if (n <= 1) this.active.delete(ip);
    else this.active.set(ip, n - 1);
  }

  of(ip: string): number {
    return this.active.get(ip) ?? 0;
  }

  /** Addresses with a request in flight. */
  get clients(): number {
    return this.active.size;
  }
}
