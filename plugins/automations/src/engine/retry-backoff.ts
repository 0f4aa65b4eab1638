/** How long a failed occurrence waits before its next attempt (`policy.retry`, reference §3.7). */
import type { AutomationPolicy } from '../model.js';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `<n><s|m|h|d>` in milliseconds (`30s`, `10m`), or null when the text is no such duration. */
export function durationMs(text: string): number | null {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : null;
}

/**
 * The delay before attempt `failedAttempt + 1`, or null when `failedAttempt` was the last one:
 * `initial × factor^(failedAttempt − 1)`, capped at `max`.
 */
export function retryDelayMs(retry: AutomationPolicy['retry'], failedAttempt: number): number | null {
  if (failedAttempt >= retry.max_attempts) return null;
  const initial = durationMs(retry.backoff.initial) ?? 30_000;
  const max = durationMs(retry.backoff.max) ?? 600_000;
  const delay = initial * Math.pow(retry.backoff.factor, Math.max(0, failedAttempt - 1));
  return Math.min(max, Math.max(0, delay));
}
