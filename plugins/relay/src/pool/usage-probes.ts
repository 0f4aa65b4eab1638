/**
 * Usage probing (reference §3.6): each account's usage report through a cache (single-flight per
 * account, batches one at a time), the backoff of a rate-limited usage endpoint, and what a fresh
 * report does: the capacity signal, the tally's window anchor, a hold when a limit is reached, and
 * the evidence-gated release of a hold (only by a report whose probe started after the hold).
 */
import { performance } from 'node:perf_hooks';
import type { RelayConfig } from '../config.js';
import type { PoolAccount } from './accounts.js';
import type { AccountStates } from './account-states.js';
import { upstreamErrorMessage, upstreamGet } from './upstream-get.js';
import type { WindowTally } from './window-tally.js';
import { isExhausted, longestWindow, windowsOf, type UsageWindow } from './windows.js';

/** What one usage probe found. */
export type ProbeResult =
  | { ok: true; report: Record<string, unknown>; windows: UsageWindow[]; startedAt: number; capturedAtMs: number }
  | { ok: false; status: number | null; message: string; startedAt: number; backoffSeconds?: number };

export class UsageProbes {
  private batch: { force: boolean; promise: Promise<ProbeResult[]> } | null = null;

  constructor(
    private readonly accounts: readonly PoolAccount[],
    private readonly states: AccountStates,
    private readonly tallies: WindowTally,
    private readonly config: RelayConfig['hosted'],
    /** Wall clock (`captured_at`). */
    private readonly clock: { nowMs(): number },
  ) {}

  /** One account's usage report, from the cache unless `force` (single-flight per account). */
  probe(account: PoolAccount, force: boolean): Promise<ProbeResult> {
    const state = this.states.of(account);
    const now = performance.now();
    if (!force && state.lastProbe && now - state.lastProbe.at < this.config.usageCacheSeconds * 1000) return Promise.resolve(state.lastProbe.result);
    // A rate-limited usage endpoint is not asked again before its backoff ends, even by a refresh: holds stay (no evidence).
    if (state.lastProbe && now < state.usageBackoffUntil) return Promise.resolve(state.lastProbe.result);
    // A forced probe may join one in flight only if that one started after the current hold (it is evidence about it).
    if (state.probing && (!force || state.probing.startedAt >= (state.hold?.since ?? -Infinity))) return state.probing.promise;
    const startedAt = performance.now();
    const promise = this.fetchUsage(account, startedAt).then((result) => {
      state.lastProbe = { result, at: performance.now() };
      if (result.ok) this.applyReport(account, result);
      else if (result.backoffSeconds !== undefined) state.usageBackoffUntil = performance.now() + result.backoffSeconds * 1000;
      return result;
    }).finally(() => {
      if (state.probing?.promise === promise) state.probing = null;
    });
    state.probing = { promise, startedAt };
    return promise;
  }

  /** Every account's usage (one batch at a time; a forced batch never joins an unforced one). */
  probeAll(force: boolean): Promise<ProbeResult[]> {
    if (this.batch && (this.batch.force || !force)) return this.batch.promise;
    const previous = this.batch?.promise ?? Promise.resolve([]);
    const promise: Promise<ProbeResult[]> = previous.catch(() => []).then(() => Promise.all(this.accounts.map((a) => this.probe(a, force)))).finally(() => {
      if (this.batch?.promise === promise) this.batch = null;
    });
    this.batch = { force, promise };
    return promise;
  }

  private async fetchUsage(account: PoolAccount, startedAt: number): Promise<ProbeResult> {
    if (account.usagePath === null) return { ok: false, status: null, message: `account ${account.slug} reports no usage (no usagePath configured)`, startedAt };
    try {
      const result = await upstreamGet(account, account.usagePath, this.config.probeTimeoutSeconds * 1000);
      if (result.status === 429) return { ok: false, status: 429, message: upstreamErrorMessage(result), startedAt, backoffSeconds: usageBackoffOf(result.body, this.config.usageBackoffSeconds) };
      if (result.status < 200 || result.status >= 300) return { ok: false, status: result.status, message: upstreamErrorMessage(result), startedAt };
      const report = result.body;
      if (typeof report !== 'object' || report === null || Array.isArray(report)) return { ok: false, status: 502, message: 'the usage report is not a JSON object', startedAt };
      return { ok: true, report: report as Record<string, unknown>, windows: windowsOf((report as Record<string, unknown>).rate_limit), startedAt, capturedAtMs: this.clock.nowMs() };
    } catch (err) {
      return { ok: false, status: 502, message: `usage report unreachable: ${(err as Error).message}`, startedAt };
    }
  }

  /** The hold logic of a fresh report (reference §3.6), judged by when the probe started. */
  private applyReport(account: PoolAccount, result: Extract<ProbeResult, { ok: true }>): void {
    const state = this.states.of(account);
    const { report, windows } = result;
    const rateLimit = (typeof report.rate_limit === 'object' && report.rate_limit !== null ? report.rate_limit : {}) as Record<string, unknown>;
    if (typeof report.account_id === 'string' && report.account_id) state.accountId = report.account_id;
    const longest = longestWindow(windows);
    if (longest) {
      if (longest.usedPercent !== null) state.signal = { usedPercent: longest.usedPercent, observedAt: result.startedAt };
      this.tallies.anchor(account.slug, longest.resetAt, longest.windowSeconds);
    }
    const reached = Boolean(report.rate_limit_reached_type) || rateLimit.limit_reached === true || rateLimit.allowed === false || windows.some(isExhausted);
    if (reached) {
      // The longest reset among exhausted windows: a maxed weekly window must not re-open every 5 h.
      const resets = windows.filter(isExhausted).map((w) => w.resetAfterSeconds ?? 0).filter((s) => s > 0);
      const seconds = resets.length > 0 ? Math.max(...resets) : this.config.accountCooldownSeconds;
      this.states.placeHold(account, { kind: 'quota', seconds, lastError: 'usage limit reached (from usage report)' });
    } else if (state.hold && result.startedAt > state.hold.since) {
      state.hold = null;
    }
  }
}

/** How long to leave a rate-limited usage endpoint alone: its error's positive `resets_in_seconds`, else the setting. */
function usageBackoffOf(body: unknown, fallbackSeconds: number): number {
  const error = (body as { error?: { resets_in_seconds?: unknown } } | null)?.error;
  const resets = error?.resets_in_seconds;
  return typeof resets === 'number' && Number.isFinite(resets) && resets > 0 ? resets : fallbackSeconds;
}
