/**
 * The hosted account pool (reference §3): which account serves a request (affinity, then the
 * `balance` strategy over accounts that are not on hold and list the model), failover in attempt
 * order with holds by evidence kind, the retry schedule around whole passes, usage probing with a
 * cache, evidence-gated release of holds, warm start and the background refresher, and the
 * per-window token tally.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RelayConfig } from '../config.js';
import { RelayFailure, type AccountPool, type PoolRequest, type TrafficSink, type UpstreamAccount } from '../contracts.js';
import { loadAccounts, type PoolAccount, type UpstreamTarget } from './accounts.js';
import { finalFailure } from './final-error.js';
import { extendHold, holdActive, holdFor, holdSecondsLeft, type Hold, type HoldProposal } from './holds.js';
import { isRetriable, RetrySchedule } from './retry-schedule.js';
import { subscriptionStatus } from './subscription-shape.js';
import { upstreamErrorMessage, upstreamGet } from './upstream-get.js';
import { WindowTally } from './window-tally.js';
import { isExhausted, longestWindow, windowsOf, windowStatus, type UsageWindow } from './windows.js';

type HostedConfig = RelayConfig['hosted'];

/** What one usage probe found. */
export type ProbeResult =
  | { ok: true; report: Record<string, unknown>; windows: UsageWindow[]; startedAt: number; capturedAtMs: number }
  | { ok: false; status: number | null; message: string; startedAt: number };

interface AccountState {
  hold: Hold | null;
  /** Selection sequence number of the last pick (least recently selected = lowest). */
  lastSelected: number;
  /** The longest window's percentage and when it was observed (monotonic ms). */
  signal: { usedPercent: number; observedAt: number } | null;
  lastProbe: { result: ProbeResult; at: number } | null;
  probing: { promise: Promise<ProbeResult>; startedAt: number } | null;
  /** Lower-cased model ids of the account's catalog; empty when unknown (every model allowed). */
  catalog: { models: Set<string>; at: number } | null;
  catalogFetch: Promise<void> | null;
  accountId: string | null;
}

export interface AccountPoolOptions {
  config: HostedConfig;
  traffic: TrafficSink;
  /** Wall clock (reset times, captured_at). Hold clocks are monotonic regardless. */
  clock: { nowMs(): number };
  /** The plugin's data folder: the token tally is kept there. */
  dataDir: string;
  warn: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The pool's own catalog refresh never runs more often than this (a TTL of 0 disables only the `/v1/models` cache). */
const MIN_CATALOG_REFRESH_MS = 60_000;

export class RelayAccountPool implements AccountPool {
  readonly accounts: readonly PoolAccount[];
  private readonly states = new Map<string, AccountState>();
  private readonly pins = new Map<string, string>();
  private readonly tallies: WindowTally;
  private readonly schedule: RetrySchedule;
  private selections = 0;
  private batch: { force: boolean; promise: Promise<ProbeResult[]> } | null = null;
  private refresher: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: AccountPoolOptions) {
    const { accounts, skipped } = loadAccounts(options.config.accounts, options.env);
    for (const reason of skipped) options.warn(reason);
    this.accounts = accounts;
    for (const account of accounts) {
      this.states.set(account.slug, { hold: null, lastSelected: -1, signal: null, lastProbe: null, probing: null, catalog: null, catalogFetch: null, accountId: null });
    }
    this.tallies = new WindowTally(join(options.dataDir, 'window-tokens.json'), (err) => options.warn(`the relay's token tally could not be saved or read: ${String(err)}`));
    this.schedule = new RetrySchedule(options.config.retryAttempts, options.config.retryBackoffSeconds);
  }

  private get config(): HostedConfig {
    return this.options.config;
  }

  /** Warm start and the background refresher (pools of two accounts or more); serving never waits on them. */
  start(): void {
    if (this.accounts.length < 2) return;
    void this.warmUp();
    this.refresher = setInterval(() => void this.backgroundRefresh(), this.config.refreshIntervalSeconds * 1000);
    this.refresher.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.refresher) clearInterval(this.refresher);
    this.refresher = null;
    this.tallies.flush();
    for (const account of this.accounts) account.agent.destroy();
  }

  /** Where and how the hosted lane calls `account`. */
  upstreamOf(account: UpstreamAccount): UpstreamTarget {
    const found = this.accounts.find((a) => a.slug === account.slug);
    if (!found) throw new Error(`unknown hosted account ${account.slug}`);
    return { baseUrl: found.baseUrl, apiKey: found.apiKey, agent: found.agent };
  }

  /** Counts a successful call's usage in the account's current window (hosted lane). */
  tally(slug: string, model: string, usage: unknown): void {
    if (this.states.has(slug)) this.tallies.add(slug, model, usage);
  }

  // ---- serving ------------------------------------------------------------------------------

  async run<T>(request: PoolRequest, attempt: (account: UpstreamAccount, attemptIndex: number) => Promise<T>): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        return await this.pass(request, attempt);
      } catch (err) {
        if (!(err instanceof RelayFailure) || !isRetriable(err.status) || retry >= this.schedule.retries) throw err;
        const next = retry + 1;
        const resets = err.error.resets_in_seconds;
        if (typeof resets === 'number' && resets > this.schedule.remainingFrom(next)) {
          this.record({ phase: 'retry_skipped', request_id: request.requestId, reason: 'quota_resets_beyond_backoff', status_code: err.status, resets_in_seconds: resets });
          throw err;
        }
        if (request.signal.aborted) throw this.clientGone(request, err);
        const delay = this.schedule.delayBefore(next);
        this.record({ phase: 'retry_backoff', request_id: request.requestId, attempt: next, max_attempts: this.schedule.retries, delay_seconds: delay, status_code: err.status, reason: err.message.slice(0, 500) });
        await sleep(delay * 1000, request.signal);
        if (request.signal.aborted) throw this.clientGone(request, err);
      }
    }
  }

  private clientGone(request: PoolRequest, err: RelayFailure): RelayFailure {
    this.record({ phase: 'retry_skipped', request_id: request.requestId, reason: 'client_disconnected', status_code: err.status });
    return err;
  }

  /** One pass: the selected account, then the others in attempt order (reference §3.4). */
  private async pass<T>(request: PoolRequest, attempt: (account: UpstreamAccount, attemptIndex: number) => Promise<T>): Promise<T> {
    if (this.accounts.length === 0) {
      throw new RelayFailure(503, { message: 'No hosted upstream account is configured: add one to relay.hosted.accounts (baseUrl and apiKey or apiKeyEnv).', type: 'server_error', code: 'no_hosted_accounts', param: null });
    }
    if (request.signal.aborted) throw new RelayFailure(499, { message: 'The client closed the request.', type: 'client_closed', code: 'client_closed', param: null });
    const order = this.attemptOrder(this.select(request), request.model);
    for (let index = 0; index < order.length; index++) {
      const account = order[index]!;
      if (index > 0) this.noteSelected(request, account, index);
      try {
        const result = await attempt(account, index);
        // Content arrived: pin the conversation to the account that delivered it.
        if (request.conversationId) this.pin(request.conversationId, account.slug);
        return result;
      } catch (err) {
        if (!(err instanceof RelayFailure) || request.signal.aborted) throw err;
        const proposal = holdFor(err, { cooldownSeconds: this.config.accountCooldownSeconds, transientSeconds: this.config.transientHoldSeconds });
        if (!proposal) throw err;
        this.placeHold(account, proposal);
        const next = order[index + 1];
        if (!next) throw this.finalError(err);
        this.record({
          phase: 'account_failover', request_id: request.requestId, from_account: account.slug, to_account: next.slug,
          reason: err.message.slice(0, 500), cooldown_seconds: Math.round(this.secondsLeft(account) * 10) / 10,
        });
      }
    }
    throw new Error('unreachable: the attempt order is never empty');
  }

  /** Affinity, then candidates, then the strategy (reference §3.3); writes `account_selected`. */
  private select(request: PoolRequest): PoolAccount {
    const model = request.model;
    const pinned = request.conversationId ? this.pins.get(request.conversationId) : undefined;
    const pinnedAccount = pinned ? this.accounts.find((a) => a.slug === pinned) : undefined;
    let chosen: PoolAccount | undefined;
    if (pinnedAccount && !this.isHeld(pinnedAccount) && this.supports(pinnedAccount, model)) chosen = pinnedAccount;
    if (!chosen) {
      const free = this.accounts.filter((a) => !this.isHeld(a));
      const supporting = free.filter((a) => this.supports(a, model));
      const candidates = supporting.length > 0 ? supporting : free;
      chosen = candidates.length > 0 ? this.byStrategy(candidates) : this.earliestRelease();
    }
    this.noteSelected(request, chosen, 0);
    return chosen;
  }

  private byStrategy(candidates: PoolAccount[]): PoolAccount {
    const leastRecent = (list: PoolAccount[]) => list.reduce((best, a) => (this.state(a).lastSelected < this.state(best).lastSelected ? a : best));
    switch (this.config.balance) {
      case 'ordered':
        return candidates[0]!;
      case 'round_robin':
        return leastRecent(candidates);
      case 'balanced': {
        const freshAfter = performance.now() - this.config.usageSignalMaxAgeSeconds * 1000;
        const fresh = candidates.filter((a) => (this.state(a).signal?.observedAt ?? -Infinity) >= freshAfter);
        if (fresh.length === 0) return leastRecent(candidates);
        const lowest = Math.min(...fresh.map((a) => Math.trunc(this.state(a).signal!.usedPercent)));
        return leastRecent(fresh.filter((a) => Math.trunc(this.state(a).signal!.usedPercent) === lowest));
      }
    }
  }

  private earliestRelease(): PoolAccount {
    return this.accounts.reduce((best, a) => (this.secondsLeft(a) < this.secondsLeft(best) ? a : best));
  }

  /** The selected account, then model supporters before the rest, free before held, earliest release first. */
  private attemptOrder(selected: PoolAccount, model: string): PoolAccount[] {
    const rank = (a: PoolAccount) => [this.supports(a, model) ? 0 : 1, this.isHeld(a) ? 1 : 0, this.secondsLeft(a), a.index];
    const rest = this.accounts.filter((a) => a !== selected).sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
      return 0;
    });
    return [selected, ...rest];
  }

  private noteSelected(request: PoolRequest, account: PoolAccount, attempt: number): void {
    this.state(account).lastSelected = ++this.selections;
    if (this.accounts.length > 1) {
      this.record({ phase: 'account_selected', request_id: request.requestId, account_id: this.state(account).accountId ?? account.slug, account: account.slug, attempt });
    }
  }

  private pin(conversationId: string, slug: string): void {
    this.pins.delete(conversationId);
    this.pins.set(conversationId, slug);
    while (this.pins.size > this.config.maxAffinityPins) this.pins.delete(this.pins.keys().next().value!);
  }

  private finalError(last: RelayFailure): RelayFailure {
    const holds = this.accounts.filter((a) => this.isHeld(a)).map((a) => ({ kind: this.state(a).hold!.kind, secondsLeft: this.secondsLeft(a) }));
    return finalFailure(last, this.accounts.length, holds);
  }

  // ---- holds ----------------------------------------------------------------------------------

  private placeHold(account: PoolAccount, proposal: HoldProposal): void {
    const state = this.state(account);
    state.hold = extendHold(state.hold, proposal, performance.now(), this.options.clock.nowMs());
  }

  private isHeld(account: PoolAccount): boolean {
    return holdActive(this.state(account).hold, performance.now(), this.options.clock.nowMs());
  }

  private secondsLeft(account: PoolAccount): number {
    return holdSecondsLeft(this.state(account).hold, performance.now(), this.options.clock.nowMs());
  }

  /** Whether the account's cached catalog lists the model (an unknown or empty catalog lets every id through). */
  supports(account: PoolAccount, model: string): boolean {
    const state = this.state(account);
    const stale = !state.catalog || performance.now() - state.catalog.at > Math.max(MIN_CATALOG_REFRESH_MS, this.config.modelsCacheTtlSeconds * 1000);
    if (stale && !this.stopped) void this.fetchCatalog(account);
    const models = state.catalog?.models;
    return !models || models.size === 0 || models.has(model.toLowerCase());
  }

  /** The account's catalog as last fetched (lower-cased ids), or null when never fetched. */
  modelsOf(account: PoolAccount): string[] | null {
    const models = this.state(account).catalog?.models;
    return models ? [...models] : null;
  }

  /** Fetches the account's `GET /models` (single-flight); a failure keeps what was known. */
  fetchCatalog(account: PoolAccount): Promise<void> {
    const state = this.state(account);
    state.catalogFetch ??= (async () => {
      try {
        const result = await upstreamGet(account, '/models', this.config.probeTimeoutSeconds * 1000);
        const data = (result.body as { data?: unknown } | null)?.data;
        if (result.status >= 200 && result.status < 300 && Array.isArray(data)) {
          const ids = data.flatMap((m) => (typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id.toLowerCase()] : []));
          state.catalog = { models: new Set(ids), at: performance.now() };
        } else if (state.catalog) {
          state.catalog.at = performance.now();
        }
      } catch {
        // Unreachable now: keep the last catalog (or none) and try again at the next refresh.
      } finally {
        state.catalogFetch = null;
      }
    })();
    return state.catalogFetch;
  }

  // ---- usage probes ---------------------------------------------------------------------------

  /** One account's usage report, from the cache unless `force` (single-flight per account). */
  probe(account: PoolAccount, force: boolean): Promise<ProbeResult> {
    const state = this.state(account);
    const now = performance.now();
    if (!force && state.lastProbe && now - state.lastProbe.at < this.config.usageCacheSeconds * 1000) return Promise.resolve(state.lastProbe.result);
    // A forced probe may join one in flight only if that one started after the current hold (it is evidence about it).
    if (state.probing && (!force || state.probing.startedAt >= (state.hold?.since ?? -Infinity))) return state.probing.promise;
    const startedAt = performance.now();
    const promise = this.fetchUsage(account, startedAt).then((result) => {
      state.lastProbe = { result, at: performance.now() };
      if (result.ok) this.applyReport(account, result);
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
      if (result.status < 200 || result.status >= 300) return { ok: false, status: result.status, message: upstreamErrorMessage(result), startedAt };
      const report = result.body;
      if (typeof report !== 'object' || report === null || Array.isArray(report)) return { ok: false, status: 502, message: 'the usage report is not a JSON object', startedAt };
      return { ok: true, report: report as Record<string, unknown>, windows: windowsOf((report as Record<string, unknown>).rate_limit), startedAt, capturedAtMs: this.options.clock.nowMs() };
    } catch (err) {
      return { ok: false, status: 502, message: `usage report unreachable: ${(err as Error).message}`, startedAt };
    }
  }

  /** The hold logic of a fresh report (reference §3.6), judged by when the probe started. */
  private applyReport(account: PoolAccount, result: Extract<ProbeResult, { ok: true }>): void {
    const state = this.state(account);
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
      this.placeHold(account, { kind: 'quota', seconds, lastError: 'usage limit reached (from usage report)' });
    } else if (state.hold && result.startedAt > state.hold.since) {
      state.hold = null;
    }
  }

  private async warmUp(): Promise<void> {
    try {
      await Promise.all([this.probeAll(true), ...this.accounts.map((a) => this.fetchCatalog(a))]);
      if (this.stopped) return;
      this.record({
        phase: 'account_pool_warmed', request_id: 'startup',
        accounts: this.accounts.map((a) => ({ account: a.slug, limited: this.isHeld(a), models_known: this.state(a).catalog?.models.size ?? 0 })),
      });
    } catch {
      // Warm-up is a head start only: the reactive path still holds accounts that fail.
    }
  }

  private async backgroundRefresh(): Promise<void> {
    try {
      await this.probeAll(false);
    } catch {
      // The refresher must never die; the next tick tries again.
    }
  }

  // ---- routes and status ----------------------------------------------------------------------

  /** `POST /v1/relay/accounts/refresh`: force-probe every account; holds move only on evidence (§3.7). */
  async refresh(requestId: string): Promise<Record<string, unknown>[]> {
    const wasLimited = new Map(this.accounts.map((a) => [a.slug, this.isHeld(a)]));
    await Promise.all([this.probeAll(true), ...this.accounts.map((a) => this.fetchCatalog(a))]);
    this.record({
      phase: 'accounts_refresh', request_id: requestId,
      accounts: this.accounts.map((a) => ({ account: a.slug, was_limited: wasLimited.get(a.slug) ?? false, limited: this.isHeld(a) })),
    });
    return this.accountStatuses();
  }

  /** The account an `?account=` names: exact email or slug, else a unique prefix of either. */
  resolveAccount(id: string): { account: PoolAccount } | { error: 'unknown' | 'ambiguous'; matches: string[] } {
    const wanted = id.toLowerCase();
    const exact = this.accounts.find((a) => a.slug === wanted || a.email?.toLowerCase() === wanted);
    if (exact) return { account: exact };
    const matches = this.accounts.filter((a) => a.slug.startsWith(wanted) || (a.email?.toLowerCase().startsWith(wanted) ?? false));
    if (matches.length === 1) return { account: matches[0]! };
    if (matches.length > 1) return { error: 'ambiguous', matches: matches.map((a) => a.email ?? a.slug) };
    return { error: 'unknown', matches: this.accounts.map((a) => a.email ?? a.slug) };
  }

  /** The `subscription_status` of one account through the usage cache; a failed probe is its sentence. */
  async subscriptionOf(account: PoolAccount, raw: boolean): Promise<{ status: Record<string, unknown> } | { error: string; statusCode: number | null }> {
    const result = await this.probe(account, false);
    if (!result.ok) return { error: result.message, statusCode: result.status };
    return { status: subscriptionStatus(result.report, { slug: account.slug, email: account.email, planType: account.planType, usagePath: account.usagePath ?? '' }, result.capturedAtMs, raw) };
  }

  /** ACCOUNT_STATUS of every account (reference §3.10). */
  accountStatuses(): Record<string, unknown>[] {
    return this.accounts.map((account) => this.accountStatus(account));
  }

  private accountStatus(account: PoolAccount): Record<string, unknown> {
    const state = this.state(account);
    const held = this.isHeld(account);
    const report = state.lastProbe?.result.ok ? state.lastProbe.result : null;
    const planType = report && typeof report.report.plan_type === 'string' ? report.report.plan_type : account.planType;
    const windowTokens = this.tallies.statusOf(account.slug);
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
      ...(held ? { limited_for_seconds: Math.round(this.secondsLeft(account) * 10) / 10, limited_kind: state.hold!.kind, last_error: state.hold!.lastError } : {}),
      ...(windowTokens ? { window_tokens: windowTokens } : {}),
    };
  }

  /** `providers.hosted` of `GET /v1/relay/status` (cached state only: never waits on an upstream). */
  statusOf(): Record<string, unknown> {
    const accounts = this.accountStatuses();
    const single = this.accounts.length === 1 ? this.tallies.statusOf(this.accounts[0]!.slug) : null;
    return {
      enabled: this.config.enabled,
      account_count: this.accounts.length,
      accounts,
      ...(this.accounts.length > 1 ? { balance: this.config.balance } : {}),
      ...(single ? { window_tokens: single } : {}),
    };
  }

  private state(account: PoolAccount): AccountState {
    return this.states.get(account.slug)!;
  }

  private record(record: Record<string, unknown>): void {
    this.options.traffic.write(record);
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
