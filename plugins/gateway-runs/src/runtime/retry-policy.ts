/**
 * Effect retries (reference §3.5): `llm_call` gets 3 attempts, `tool_calls` 2, every other effect
 * 1; between attempts an exponential backoff (base 1 s, capped). Only failures that may succeed on
 * a second try are retried: an engine or endpoint that crashed, a 5xx, a timeout, a lost
 * connection, a rate limit. A request the provider refused (unknown model, bad request, refused
 * key, missing model file, context overflow, schema the engine cannot use) fails at once.
 */

export interface RetryConfig {
  /** Backoff before attempt n+1 = min(backoffMaxMs, backoffBaseMs × 2^(n−1)). */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Attempts per effect type; a type not named gets 1. */
  maxAttempts: Record<string, number>;
}

export const DEFAULT_RETRY: RetryConfig = { backoffBaseMs: 1000, backoffMaxMs: 60_000, maxAttempts: { llm_call: 3, tool_calls: 2 } };

/** Provider error codes that say the request itself cannot succeed (see `@keel/plugin-inference`). */
const PERMANENT_CODES = new Set([
  'model_not_found',
  'model_file_missing',
  'model_not_supported',
  'model_load_failed',
  'invalid_schema',
  'context_length_exceeded',
  'upstream_auth_failed',
  'upstream_bad_request',
  // An llm_call cut at its output bound on every attempt, or whose response_schema is unusable.
  'output_truncated',
  'invalid_response_schema',
  // A tool_calls step over its time or size budget would do the same again.
  'tool_budget_exceeded',
]);

export class RetryPolicy {
  constructor(private readonly config: RetryConfig = DEFAULT_RETRY) {}

  maxAttempts(effectType: string): number {
    return Math.max(1, Math.floor(this.config.maxAttempts[effectType] ?? 1));
  }

  /** The wait after the `failures`-th failed attempt. */
  backoffMs(failures: number): number {
    return Math.min(this.config.backoffMaxMs, this.config.backoffBaseMs * 2 ** Math.max(0, failures - 1));
  }
}

/**
 * Whether an error thrown by an effect may go away on a retry. Errors carrying an HTTP status
 * (the provider layer's `HttpError`) are judged by code and status: 4xx other than 408/429 is the
 * request's fault. Errors without a status (a worker that died, a reset connection) are transient.
 */
export function isRetryable(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return true;
  const { status, code } = err as { status?: unknown; code?: unknown };
  if (typeof code === 'string' && PERMANENT_CODES.has(code)) return false;
  if (typeof status === 'number') return status >= 500 || status === 408 || status === 429;
  return true;
}

/** Waits `ms`; resolves false at once if `signal` aborts first (a cancel during the backoff). */
export function backoff(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
