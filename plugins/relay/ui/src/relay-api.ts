/**
 * The relay's `/v1/relay/*` and `/v1/subscription/*` routes, called with the pasted token. A refusal
 * becomes a `RelayApiError` carrying the status and the relay's own sentence (`error.message`, else
 * `detail`), shown to the user verbatim.
 */
import type { LoggingStatus, RelayStatus, SubscriptionAnswer, TrafficList } from './shapes.js';

export class RelayApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'RelayApiError';
  }
}

export class RelayApi {
  constructor(private readonly base: string, private readonly token: () => string | null) {}

  status(): Promise<RelayStatus> {
    return this.call('GET', '/relay/status');
  }

  subscriptions(): Promise<SubscriptionAnswer> {
    return this.call('GET', '/subscription/status?all_accounts=true');
  }

  traffic(limit: number): Promise<TrafficList> {
    return this.call('GET', `/relay/traffic?limit=${limit}`);
  }

  logging(): Promise<LoggingStatus> {
    return this.call('GET', '/relay/logging');
  }

  saveLogging(policy: Record<string, unknown>): Promise<LoggingStatus> {
    return this.call('PUT', '/relay/logging', policy);
  }

  refreshAccounts(): Promise<unknown> {
    return this.call('POST', '/relay/accounts/refresh');
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.token() ?? ''}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
    } catch (err) {
      throw new RelayApiError(0, `The relay did not answer (${err instanceof Error ? err.message : String(err)}).`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) throw new RelayApiError(res.status, refusalMessage(parsed) ?? `The relay answered ${res.status} ${res.statusText}.`);
    return parsed as T;
  }
}

/** The relay envelope's sentence: `error.message`, else `detail` (a string, or an object with `message`). */
export function refusalMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const { error, detail } = body as { error?: { message?: unknown }; detail?: unknown };
  if (typeof error?.message === 'string' && error.message) return error.message;
  if (typeof detail === 'string' && detail) return detail;
  if (typeof detail === 'object' && detail !== null && typeof (detail as { message?: unknown }).message === 'string') return (detail as { message: string }).message;
  return null;
}
