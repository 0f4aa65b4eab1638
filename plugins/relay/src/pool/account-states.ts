/**
 * What the pool knows about each account between calls: its hold (holds.ts), when it was last
 * selected, its latest capacity signal, its usage probes and its model catalog. Hold questions are
 * answered here against both clocks (monotonic for the hold, wall for the upstream's reset).
 */
import { performance } from 'node:perf_hooks';
import type { RelayConfig } from '../config.js';
import type { PoolAccount } from './accounts.js';
import { extendHold, holdActive, holdSecondsLeft, type Hold, type HoldProposal } from './holds.js';
import { upstreamGet } from './upstream-get.js';
import type { ProbeResult } from './usage-probes.js';

export interface AccountState {
  hold: Hold | null;
  /** Selection sequence number of the last pick (least recently selected = lowest). */
  lastSelected: number;
  /** The longest window's percentage and when it was observed (monotonic ms). */
  signal: { usedPercent: number; observedAt: number } | null;
  lastProbe: { result: ProbeResult; at: number } | null;
  /** No usage probe before this (monotonic ms): the usage endpoint answered 429 (reference §8 item 24). */
  usageBackoffUntil: number;
  probing: { promise: Promise<ProbeResult>; startedAt: number } | null;
  /** Lower-cased model ids of the account's catalog; empty when unknown (every model allowed). */
  catalog: { models: Set<string>; at: number } | null;
  catalogFetch: Promise<void> | null;
  accountId: string | null;
}

/** The pool's own catalog refresh never runs more often than this (a TTL of 0 disables only the `/v1/models` cache). */
const MIN_CATALOG_REFRESH_MS = 60_000;

export class AccountStates {
  private readonly states = new Map<string, AccountState>();
  /** Set at stop: no catalog fetch starts after it. */
  stopped = false;

  constructor(
    accounts: readonly PoolAccount[],
    private readonly config: RelayConfig['hosted'],
    /** Wall clock (reset times). */
    private readonly clock: { nowMs(): number },
  ) {
    for (const account of accounts) {
      this.states.set(account.slug, { hold: null, lastSelected: -1, signal: null, lastProbe: null, usageBackoffUntil: 0, probing: null, catalog: null, catalogFetch: null, accountId: null });
    }
  }

  has(slug: string): boolean {
    return this.states.has(slug);
  }

  of(account: PoolAccount): AccountState {
    return this.states.get(account.slug)!;
  }

  placeHold(account: PoolAccount, proposal: HoldProposal): void {
    const state = this.of(account);
    state.hold = extendHold(state.hold, proposal, performance.now(), this.clock.nowMs());
  }

  isHeld(account: PoolAccount): boolean {
    return holdActive(this.of(account).hold, performance.now(), this.clock.nowMs());
  }

  secondsLeft(account: PoolAccount): number {
    return holdSecondsLeft(this.of(account).hold, performance.now(), this.clock.nowMs());
  }

  /** Whether the account's cached catalog lists the model (an unknown or empty catalog lets every id through). */
  supports(account: PoolAccount, model: string): boolean {
    const state = this.of(account);
    const stale = !state.catalog || performance.now() - state.catalog.at > Math.max(MIN_CATALOG_REFRESH_MS, this.config.modelsCacheTtlSeconds * 1000);
    if (stale && !this.stopped) void this.fetchCatalog(account);
    const models = state.catalog?.models;
    return !models || models.size === 0 || models.has(model.toLowerCase());
  }

  /** The account's catalog as last fetched (lower-cased ids), or null when never fetched. */
  modelsOf(account: PoolAccount): string[] | null {
    const models = this.of(account).catalog?.models;
    return models ? [...models] : null;
  }

  /** Fetches the account's `GET /models` (single-flight); a failure keeps what was known. */
  fetchCatalog(account: PoolAccount): Promise<void> {
    const state = this.of(account);
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
}
