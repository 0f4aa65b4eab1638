/**
 * The last notable traffic records, kept in memory for the status page (`recent(n)`): the events a
 * user looks for when asking which account served them and why (adaptations, failovers, retries,
 * stream errors, account choices, refreshes). Kept as their redacted log lines, parsed when read.
 */

export const NOTABLE_PHASES: ReadonlySet<string> = new Set([
  'compatibility_adaptation', 'account_failover', 'retry_backoff', 'retry_skipped', 'upstream_stream_error',
  'account_selected', 'accounts_refresh',
]);

export class NotableRecords {
  private readonly lines: string[] = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  add(line: string): void {
    if (this.capacity === 0) return;
    if (this.lines.length < this.capacity) this.lines.push(line);
    else this.lines[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The last `n` records, oldest first. */
  recent(n: number): Array<Record<string, unknown>> {
    const count = Math.max(0, Math.min(Math.floor(n), this.lines.length));
    const out: Array<Record<string, unknown>> = [];
    for (let i = count; i >= 1; i -= 1) {
      const index = (this.next - i + this.lines.length) % this.lines.length;
      out.push(JSON.parse(this.lines[index]!) as Record<string, unknown>);
    }
    return out;
  }
}
