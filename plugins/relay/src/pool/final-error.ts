/**
 * The error after the last account failed (reference §3.8). When more than one account exists and
 * every one is on hold, the upstream error is rewritten (its other fields kept): "at their limits"
 * only when every hold is quota evidence, with `resets_in_seconds` (the earliest hold end) only on
 * a 429; otherwise "failed for this request" with no horizon (reference §8 item 6).
 */
import { RelayFailure } from '../contracts.js';
import type { HoldKind } from './holds.js';

export interface PoolHoldView {
  kind: HoldKind;
  secondsLeft: number;
}

/** `holds` has one entry per account on hold; `accountCount` is every account of the pool. */
export function finalFailure(last: RelayFailure, accountCount: number, holds: PoolHoldView[]): RelayFailure {
  if (accountCount <= 1 || holds.length < accountCount) return last;
  const error = { ...last.error };
  const upstreamMessage = String(last.error.message ?? '');
  if (holds.every((hold) => hold.kind === 'quota')) {
    const earliest = Math.max(1, Math.ceil(Math.min(...holds.map((hold) => hold.secondsLeft))));
    error.message = `All ${accountCount} hosted accounts are at their limits (earliest retry in ${earliest}s). Last error: ${upstreamMessage}`;
    if (last.status === 429) error.resets_in_seconds = earliest;
    else delete error.resets_in_seconds;
  } else {
    error.message = `All ${accountCount} hosted accounts failed for this request. Last error: ${upstreamMessage}`;
    delete error.resets_in_seconds;
  }
  if (!error.code && !error.type) {
    error.type = 'upstream_error';
    error.code = 'all_accounts_limited';
  }
  return new RelayFailure(last.status, error, last.headers);
}
