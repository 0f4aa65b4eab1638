/**
 * The hosted account pool (reference §3): which account serves a request (affinity, then the
 * `balance` strategy over accounts that are not on hold and list the model), failover in attempt
 * order with holds by evidence kind, and the retry schedule around whole passes. What it knows per
 * account is in account-states.ts (holds, catalogs), usage probing and the evidence-gated release
 * in usage-probes.ts, the status shape in account-status.ts; here also warm start, the background
 * refresher and the per-window token tally.
 */
import { join } from 'node:path';
import type { RelayConfig } from '../config.js';
import { RelayFailure, type AccountPool, type PoolRequest, type TrafficSink, type UpstreamAccount } from '../contracts.js';
import { loadAccounts, type PoolAccount, type UpstreamTarget } from './accounts.js';
import { finalFailure } from './final-error.js';
import { accountStatus } from './account-status.js';
import { AccountStates } from './account-states.js';
import { holdFor } from './holds.js';
import { isRetriable, RetrySchedule } from './retry-schedule.js';
import { attemptOrder, chooseAccount } from './selection.js';
import { subscriptionStatus } from './subscription-shape.js';
import { UsageProbes, type ProbeResult } from './usage-probes.js';
import { WindowTally } from './window-tally.js';

export type { ProbeResult } from './usage-probes.js';

type HostedConfig = RelayConfig['hosted'];

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

export class RelayAccountPool implements AccountPool {
  readonly accounts: readonly PoolAccount[];
  private readonly states: AccountStates;
  private readonly probes: UsageProbes;
  private readonly pins = new Map<string, string>();
  private readonly tallies: WindowTally;
  private readonly schedule: RetrySchedule;
  private selections = 0;
  private refresher: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: AccountPoolOptions) {
    const { accounts, skipped } = loadAccounts(options.config.accounts, options.env);
    for (const reason of skipped) options.warn(reason);
    this.accounts = accounts;
    this.states = new AccountStates(accounts, options.config, options.clock);
    this.tallies = new WindowTally(join(options.dataDir, 'window-tokens.json'), (err) => options.warn(`the relay's token tally could not be saved or read: ${String(err)}`));
    this.probes = new UsageProbes(accounts, this.states, this.tallies, options.config, options.clock);
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
    this.states.stopped = true;
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
    const order = attemptOrder(this.accounts, this.states, this.select(request), request.model);
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
        this.states.placeHold(account, proposal);
        const next = order[index + 1];
        if (!next) throw this.finalError(err);
        this.record({
          phase: 'account_failover', request_id: request.requestId, from_account: account.slug, to_account: next.slug,
          reason: err.message.slice(0, 500), cooldown_seconds: Math.round(this.states.secondsLeft(account) * 10) / 10,
        });
      }
    }
    throw new Error('unreachable: the attempt order is never empty');
  }

  /** Affinity, then candidates, then the strategy (reference §3.3, selection.ts); writes `account_selected`. */
  private select(request: PoolRequest): PoolAccount {
    const pinned = request.conversationId ? this.pins.get(request.conversationId) : undefined;
    const chosen = chooseAccount(this.accounts, this.states, this.config, request.model, pinned);
    this.noteSelected(request, chosen, 0);
    return chosen;
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
    const holds = this.accounts.filter((a) => this.states.isHeld(a)).map((a) => ({ kind: this.state(a).hold!.kind, secondsLeft: this.states.secondsLeft(a) }));
    return finalFailure(last, this.accounts.length, holds);
  }

  // ---- per-account state (account-states.ts) and usage probes (usage-probes.ts) ------------------

  /** Whether the account's cached catalog lists the model (an unknown or empty catalog lets every id through). */
  supports(account: PoolAccount, model: string): boolean {
    return this.states.supports(account, model);
  }

  /** The account's catalog as last fetched (lower-cased ids), or null when never fetched. */
  modelsOf(account: PoolAccount): string[] | null {
    return this.states.modelsOf(account);
  }

  /** Fetches the account's `GET /models` (single-flight); a failure keeps what was known. */
  fetchCatalog(account: PoolAccount): Promise<void> {
    return this.states.fetchCatalog(account);
  }

  /** One account's usage report, from the cache unless `force` (single-flight per account). */
  probe(account: PoolAccount, force: boolean): Promise<ProbeResult> {
    return this.probes.probe(account, force);
  }

  /** Every account's usage (one batch at a time; a forced batch never joins an unforced one). */
  probeAll(force: boolean): Promise<ProbeResult[]> {
    return this.probes.probeAll(force);
  }

  private async warmUp(): Promise<void> {
    try {
      await Promise.all([this.probeAll(true), ...this.accounts.map((a) => this.fetchCatalog(a))]);
      if (this.stopped) return;
      this.record({
        phase: 'account_pool_warmed', request_id: 'startup',
        accounts: this.accounts.map((a) => ({ account: a.slug, limited: this.states.isHeld(a), models_known: this.state(a).catalog?.models.size ?? 0 })),
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
    const wasLimited = new Map(this.accounts.map((a) => [a.slug, this.states.isHeld(a)]));
    await Promise.all([this.probeAll(true), ...this.accounts.map((a) => this.fetchCatalog(a))]);
    this.record({
      phase: 'accounts_refresh', request_id: requestId,
      accounts: this.accounts.map((a) => ({ account: a.slug, was_limited: wasLimited.get(a.slug) ?? false, limited: this.states.isHeld(a) })),
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
    return accountStatus(account, this.states, this.tallies);
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

  private state(account: PoolAccount) {
    return this.states.of(account);
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
