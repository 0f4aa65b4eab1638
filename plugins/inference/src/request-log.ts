/** Recent `/v1` requests, newest last, in a bounded ring: what was asked and how it went, never content or keys. */
export interface RequestLogEntry {
  id: string;
  at: string;
  account: string;
  endpoint: string;
  model: string | null;
  provider: string | null;
  stream: boolean;
  status: number;
  duration_ms: number;
  ttft_ms: number | null;
  finish_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  error_code: string | null;
}

export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];
  private total = 0;

  constructor(private readonly capacity: number) {}

  add(entry: RequestLogEntry): void {
    this.total++;
    if (this.capacity === 0) return;
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.shift();
  }

  /** Newest first; `account` limits the rows to one account. */
  recent(limit: number, account?: string): RequestLogEntry[] {
    const rows = account ? this.entries.filter((e) => e.account === account) : this.entries;
    return rows.slice(-limit).reverse();
  }

  get requestsTotal(): number {
    return this.total;
  }
}
