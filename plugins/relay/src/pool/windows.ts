/**
 * Usage windows of an upstream usage report (reference §3.2, §1.5), identified by their duration,
 * never by their slot: plans report a weekly window alone or a 5 h window beside a weekly one. One
 * label vocabulary serves the subscription status, the account status and the token tally.
 */

/** One window as the upstream reported it (malformed fields are null; the window is kept). */
export interface UsageWindow {
  slot: 'primary_window' | 'secondary_window';
  usedPercent: number | null;
  windowSeconds: number | null;
  resetAfterSeconds: number | null;
  /** Epoch seconds. */
  resetAt: number | null;
}

/** The normalised WINDOW of `GET /v1/subscription/status` (reference §1.5). */
export interface WindowStatus {
  used_percent: number | null;
  remaining_percent: number | null;
  window_seconds: number | null;
  window_minutes: number | null;
  window_label: string | null;
  reset_after_seconds: number | null;
  reset_at: number | null;
  reset_at_iso: string | null;
}

const SLOTS = ['primary_window', 'secondary_window'] as const;
const WEEK_SECONDS = 604_800;

/** `weekly`, `<n>d`, `<n>h`, `<n>m` or `<n>s` for a window's duration; null when unknown. */
export function windowLabel(seconds: number | null): string | null {
  if (seconds === null || !(seconds > 0)) return null;
  if (seconds === WEEK_SECONDS) return 'weekly';
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** A finite number (booleans and strings rejected), else null. */
export function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

/** The windows of one `rate_limit` object, in slot order (absent slots are skipped). */
export function windowsOf(rateLimit: unknown): UsageWindow[] {
  const limit = record(rateLimit);
  if (!limit) return [];
  const windows: UsageWindow[] = [];
  for (const slot of SLOTS) {
    const raw = record(limit[slot]);
    if (!raw) continue;
    const seconds = numberOrNull(raw.limit_window_seconds);
    windows.push({
      slot,
      usedPercent: numberOrNull(raw.used_percent),
      windowSeconds: seconds !== null && seconds > 0 ? Math.trunc(seconds) : null,
      // 429 bodies spell it `resets_in_seconds`.
      resetAfterSeconds: numberOrNull(raw.reset_after_seconds) ?? numberOrNull(raw.resets_in_seconds),
      resetAt: numberOrNull(raw.reset_at),
    });
  }
  return windows;
}

/** The window with the longest known duration (unknown loses, ties go to the earlier slot). */
export function longestWindow(windows: UsageWindow[]): UsageWindow | null {
  let best: UsageWindow | null = null;
  for (const window of windows) {
    if (best === null || (window.windowSeconds ?? -1) > (best.windowSeconds ?? -1)) best = window;
  }
  return best;
}

export function isExhausted(window: UsageWindow): boolean {
  return window.usedPercent !== null && window.usedPercent >= 100;
}

/** The normalised WINDOW of one reported window. */
export function windowStatus(window: UsageWindow): WindowStatus {
  const used = window.usedPercent;
  return {
    used_percent: used,
    remaining_percent: used === null ? null : Math.round(Math.min(100, Math.max(0, 100 - used)) * 100) / 100,
    window_seconds: window.windowSeconds,
    window_minutes: window.windowSeconds === null ? null : Math.ceil(window.windowSeconds / 60),
    window_label: windowLabel(window.windowSeconds),
    reset_after_seconds: window.resetAfterSeconds,
    reset_at: window.resetAt,
    reset_at_iso: window.resetAt === null ? null : isoOfEpochSeconds(window.resetAt),
  };
}

function isoOfEpochSeconds(seconds: number): string | null {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
