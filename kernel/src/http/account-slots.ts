/**
 * Places per account for long-lived connections (event streams, sockets): one account cannot hold
 * more than `limit` at once, so it cannot exhaust the server's memory and file descriptors alone.
 */
export class AccountSlots {
  private readonly held = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Takes a place for `account`; returns its release (safe to call twice), or null when the account is at the limit. */
  tryAcquire(account: string): (() => void) | null {
    const count = this.held.get(account) ?? 0;
    if (count >= this.limit) return null;
    this.held.set(account, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = (this.held.get(account) ?? 1) - 1;
      if (now > 0) this.held.set(account, now);
      else this.held.delete(account);
    };
  }
}
