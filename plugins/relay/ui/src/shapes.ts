/**
 * What the relay answers (reference §1.5, §1.7, §1.8, §3.10, §5.3) and how the page reads it. The
 * answers are read defensively: a field of the wrong type is treated as absent, never trusted. Usage
 * windows are shown only when reported (never synthesised, reference §8 item 13), named by their
 * duration label.
 */

export interface UsageWindow {
  used_percent?: number | null;
  remaining_percent?: number | null;
  window_seconds?: number | null;
  window_label?: string | null;
  reset_after_seconds?: number | null;
  reset_at?: number | null;
  reset_at_iso?: string | null;
}

export interface RateLimit {
  allowed?: boolean | null;
  limit_reached?: boolean | null;
  primary_window?: UsageWindow | null;
  secondary_window?: UsageWindow | null;
}

export interface SubscriptionStatus {
  object?: string;
  account?: { email?: string | null; plan_type?: string | null } | null;
  rate_limits?: {
    default?: RateLimit | null;
    code_review?: RateLimit | null;
    additional?: Array<{ limit_name?: string | null; rate_limit?: RateLimit | null }> | null;
  } | null;
  rate_limit_reached_type?: string | null;
}

export type SubscriptionAnswer =
  | (SubscriptionStatus & { object: 'subscription_status' })
  | { object: 'subscription_status_list'; accounts: Array<{ slug: string; email?: string | null; status?: SubscriptionStatus; error?: string }> };

/** ACCOUNT_STATUS (reference §3.10). */
export interface AccountStatus {
  slug: string;
  email?: string | null;
  plan_type?: string | null;
  ready_for_requests?: boolean;
  limited?: boolean;
  limited_for_seconds?: number;
  limited_kind?: string;
  last_error?: string;
  /** The windows of the account's last usage report, from the pool's cache (WINDOW shape). */
  usage_windows?: UsageWindow[];
}

export interface RelayStatus {
  requests_total?: number;
  version?: string;
  providers?: {
    hosted?: { enabled?: boolean; accounts?: AccountStatus[]; balance?: string };
    cli?: { enabled?: boolean; ready_for_requests?: boolean; models?: string[] };
  };
}

export interface LoggingStatus {
  policy: { retention_days: number; max_total_mb: number; max_file_mb: number };
  policy_source?: string;
  logs_dir?: string;
  usage_bytes?: number;
  file_count?: number;
  over_budget?: boolean;
  last_cleanup_at?: string | null;
  deleted_files?: number;
  deleted_bytes?: number;
  oversized_records?: number;
  dropped_records?: number;
  last_error?: string | null;
}

export interface TrafficRecord {
  phase?: string;
  request_id?: string;
  logged_at?: string;
  [field: string]: unknown;
}

export interface TrafficList {
  data: TrafficRecord[];
}

/** One window as the page shows it. */
export interface WindowView {
  /** `weekly`, `5h`; with the limit's name for extra limits (`code review · weekly`). */
  label: string;
  usedPercent: number | null;
  remainingPercent: number | null;
  resetAfterSeconds: number | null;
  resetAtIso: string | null;
  windowSeconds: number | null;
}

/** One account: what the status says of it (hold) and what its usage report says (windows). */
export interface AccountView {
  slug: string;
  email: string | null;
  plan: string | null;
  ready: boolean | null;
  hold: { kind: string; remainingSeconds: number; lastError: string | null } | null;
  lastError: string | null;
  windows: WindowView[];
  usageError: string | null;
  limitReached: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function windowView(window: UsageWindow | null | undefined, prefix: string | null): WindowView | null {
  if (!window || typeof window !== 'object') return null;
  const used = num(window.used_percent);
  const remaining = num(window.remaining_percent) ?? (used === null ? null : Math.max(0, Math.min(100, 100 - used)));
  const seconds = num(window.window_seconds);
  const label = str(window.window_label) ?? (seconds ? `${seconds}s` : 'window');
  return {
    label: prefix ? `${prefix} · ${label}` : label,
    usedPercent: used,
    remainingPercent: remaining,
    resetAfterSeconds: num(window.reset_after_seconds),
    resetAtIso: str(window.reset_at_iso) ?? (num(window.reset_at) ? new Date(num(window.reset_at)! * 1000).toISOString() : null),
    windowSeconds: seconds,
  };
}

function limitWindows(limit: RateLimit | null | undefined, prefix: string | null): WindowView[] {
  if (!limit || typeof limit !== 'object') return [];
  return [windowView(limit.primary_window, prefix), windowView(limit.secondary_window, prefix)].filter((w): w is WindowView => w !== null);
}

/** Every reported window of a usage report: the default limit's (longest first), then code review and the extra limits. */
export function windowsOf(status: SubscriptionStatus | null | undefined): WindowView[] {
  const limits = status?.rate_limits;
  if (!limits || typeof limits !== 'object') return [];
  const main = limitWindows(limits.default, null).sort((a, b) => (b.windowSeconds ?? -1) - (a.windowSeconds ?? -1));
  const extra = [
    ...limitWindows(limits.code_review, 'code review'),
    ...(Array.isArray(limits.additional) ? limits.additional.flatMap((a) => limitWindows(a?.rate_limit, str(a?.limit_name) ?? 'extra')) : []),
  ];
  return [...main, ...extra];
}

/** The windows the status carries when the usage route did not answer (longest first). */
function cachedWindows(account: AccountStatus): WindowView[] {
  if (!Array.isArray(account.usage_windows)) return [];
  return account.usage_windows.map((w) => windowView(w, null)).filter((w): w is WindowView => w !== null).sort((a, b) => (b.windowSeconds ?? -1) - (a.windowSeconds ?? -1));
}

/** The usage report of each account by slug (a single-account answer belongs to the only account). */
function reportsBySlug(answer: SubscriptionAnswer | null, accounts: AccountStatus[]): Map<string, { status?: SubscriptionStatus; error?: string }> {
  const bySlug = new Map<string, { status?: SubscriptionStatus; error?: string }>();
  if (!answer || typeof answer !== 'object') return bySlug;
  if (answer.object === 'subscription_status_list' && Array.isArray(answer.accounts)) {
    for (const entry of answer.accounts) if (typeof entry?.slug === 'string') bySlug.set(entry.slug, { status: entry.status, error: str(entry.error) ?? undefined });
  } else if (answer.object === 'subscription_status' && accounts.length === 1) {
    bySlug.set(accounts[0]!.slug, { status: answer });
  }
  return bySlug;
}

/** The accounts of the status merged with their usage reports; `ageSeconds` is how long ago the status was read. */
export function accountViews(status: RelayStatus | null, answer: SubscriptionAnswer | null, ageSeconds = 0): AccountView[] {
  const accounts = (Array.isArray(status?.providers?.hosted?.accounts) ? status!.providers!.hosted!.accounts! : []).filter((a) => typeof a?.slug === 'string');
  const reports = reportsBySlug(answer, accounts);
  return accounts.map((account) => {
    const report = reports.get(account.slug);
    const lastError = str(account.last_error);
    return {
      slug: account.slug,
      email: str(account.email) ?? str(report?.status?.account?.email),
      plan: str(account.plan_type) ?? str(report?.status?.account?.plan_type),
      ready: typeof account.ready_for_requests === 'boolean' ? account.ready_for_requests : null,
      hold: account.limited === true
        ? { kind: str(account.limited_kind) ?? 'hold', remainingSeconds: Math.max(0, (num(account.limited_for_seconds) ?? 0) - ageSeconds), lastError }
        : null,
      lastError,
      windows: report?.status ? windowsOf(report.status) : cachedWindows(account),
      usageError: report?.error ?? null,
      limitReached: str(report?.status?.rate_limit_reached_type),
    };
  });
}

/**
 * The account the pool picks next under `balance` (reference §3.3), or null when the page cannot
 * tell (round robin, or every account on hold): `ordered` takes the first account not on hold,
 * `balanced` the one not on hold with the lowest whole used percent of its longest window.
 */
export function nextPick(accounts: AccountView[], balance: string | null): AccountView | null {
  const free = accounts.filter((a) => !a.hold);
  if (free.length === 0) return null;
  if (free.length === 1 || balance === 'ordered') return free[0]!;
  if (balance !== 'balanced') return null;
  const used = (a: AccountView) => {
    const longest = a.windows.filter((w) => !w.label.includes(' · ') && w.usedPercent !== null)[0];
    return longest ? Math.trunc(longest.usedPercent!) : null;
  };
  const known = free.filter((a) => used(a) !== null);
  if (known.length === 0) return null;
  const lowest = Math.min(...known.map((a) => used(a)!));
  const tied = known.filter((a) => used(a) === lowest);
  return tied.length === 1 ? tied[0]! : null;
}
