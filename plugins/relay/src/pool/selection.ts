/**
 * Account choice (reference §3.3, §3.4): affinity to the account that last delivered the
 * conversation's content, then the candidates (free accounts that list the model, else any free
 * one, else the earliest to be released) and the `balance` strategy among them; then the attempt
 * order for failover: the chosen account, model supporters before the rest, free before held,
 * earliest release first.
 */
import { performance } from 'node:perf_hooks';
import type { RelayConfig } from '../config.js';
import type { PoolAccount } from './accounts.js';
import type { AccountStates } from './account-states.js';

type SelectionConfig = Pick<RelayConfig['hosted'], 'balance' | 'usageSignalMaxAgeSeconds'>;

/** The account that serves first: the pinned one when it is free and lists the model, else by the candidates and the strategy. */
export function chooseAccount(accounts: readonly PoolAccount[], states: AccountStates, config: SelectionConfig, model: string, pinned: string | undefined): PoolAccount {
  const pinnedAccount = pinned ? accounts.find((a) => a.slug === pinned) : undefined;
  if (pinnedAccount && !states.isHeld(pinnedAccount) && states.supports(pinnedAccount, model)) return pinnedAccount;
  const free = accounts.filter((a) => !states.isHeld(a));
  const supporting = free.filter((a) => states.supports(a, model));
  const candidates = supporting.length > 0 ? supporting : free;
  if (candidates.length > 0) return byStrategy(candidates, states, config);
  return accounts.reduce((best, a) => (states.secondsLeft(a) < states.secondsLeft(best) ? a : best));
}

function byStrategy(candidates: PoolAccount[], states: AccountStates, config: SelectionConfig): PoolAccount {
  const leastRecent = (list: PoolAccount[]) => list.reduce((best, a) => (states.of(a).lastSelected < states.of(best).lastSelected ? a : best));
  switch (config.balance) {
    case 'ordered':
      return candidates[0]!;
    case 'round_robin':
      return leastRecent(candidates);
    case 'balanced': {
      const freshAfter = performance.now() - config.usageSignalMaxAgeSeconds * 1000;
      const fresh = candidates.filter((a) => (states.of(a).signal?.observedAt ?? -Infinity) >= freshAfter);
      if (fresh.length === 0) return leastRecent(candidates);
      const lowest = Math.min(...fresh.map((a) => Math.trunc(states.of(a).signal!.usedPercent)));
      return leastRecent(fresh.filter((a) => Math.trunc(states.of(a).signal!.usedPercent) === lowest));
    }
  }
}

/** The selected account, then model supporters before the rest, free before held, earliest release first. */
export function attemptOrder(accounts: readonly PoolAccount[], states: AccountStates, selected: PoolAccount, model: string): PoolAccount[] {
  if (accounts.length === 1) return [selected];
  const rank = (a: PoolAccount) => [states.supports(a, model) ? 0 : 1, states.isHeld(a) ? 1 : 0, states.secondsLeft(a), a.index];
  const rest = accounts.filter((a) => a !== selected).sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
    return 0;
  });
  return [selected, ...rest];
}
