/**
 * ACCOUNT_STATUS (reference §3.10): one account as the relay status, the accounts refresh and the
 * status page show it, from cached state only (the last usage report, the hold, the catalog, the
 * window tally); never a call to the upstream.
 */
import type { PoolAccount } from './accounts.js';
import type { AccountStates } from './account-states.js';
import type { WindowTally } from './window-tally.js';
import { windowStatus } from './windows.js';

export function accountStatus(account: PoolAccount, states: AccountStates, tallies: WindowTally): Record<string, unknown> {
  const state = states.of(account);
  const held = states.isHeld(account);
  const report = state.lastProbe?.result.ok ? state.lastProbe.result : null;
  const planType = report && typeof report.report.plan_type === 'string' ? report.report.plan_type : account.planType;
  const windowTokens = tallies.statusOf(account.slug);
  return {
    slug: account.slug,
    email: account.email ?? (report && typeof report.report.email === 'string' ? report.report.email : null),
    base_url: account.baseUrl,
    account_id: state.accountId,
    plan_type: planType,
    credentials_present: true,
    authenticated: !(held && state.hold!.kind === 'auth'),
    ready_for_requests: !held,
    usage_reported: account.usagePath !== null,
    usage_windows: report ? report.windows.map((w) => ({ slot: w.slot, ...windowStatus(w) })) : [],
    usage_captured_at: report ? new Date(report.capturedAtMs).toISOString() : null,
    models_known: state.catalog?.models.size ?? null,
    limited: held,
    ...(held ? { limited_for_seconds: Math.round(states.secondsLeft(account) * 10) / 10, limited_kind: state.hold!.kind, last_error: state.hold!.lastError } : {}),
    ...(windowTokens ? { window_tokens: windowTokens } : {}),
  };
}
