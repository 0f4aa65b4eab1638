/**
 * Holds ("benches", reference §3.5): an account that failed is kept out of selection for a while.
 * The kind records the freshest evidence (`quota`, `auth`, `transient`); a hold only ever extends,
 * so a short transient cooldown never cuts a long quota hold. Hold clocks are monotonic
 * (`performance.now()`), and a hold also ends once the upstream's wall-clock reset has passed
 * (monotonic time stands still while a laptop sleeps).
 */
import type { RelayFailure } from '../contracts.js';

export type HoldKind = 'quota' | 'auth' | 'transient';

export interface Hold {
  kind: HoldKind;
  /** Monotonic ms when the hold was last placed or extended (a probe must start after it to release it). */
  since: number;
  /** Monotonic ms when it ends. */
  until: number;
  /** Epoch ms of the upstream's reset, when known: the hold also ends then. */
  wallUntil: number | null;
  /** `status <code>: <detail ≤160>` or `usage limit reached (from usage report)`. */
  lastError: string;
}

export interface HoldProposal {
  kind: HoldKind;
  seconds: number;
  lastError: string;
}

const QUOTA_MARKERS = ['usage_limit_reached', 'rate_limit_reached'];

export interface HoldDurations {
  cooldownSeconds: number;
  transientSeconds: number;
}

/**
 * The hold a failure earns, or null for a client error (4xx other than 401 and 429): that one is
 * the request's fault and fails fast, on no other account and with no retry (reference §8 item 5).
 * Usage-limit markers count only in a structured error's `type` or on a real 429 (item 16).
 */
export function holdFor(failure: RelayFailure, durations: HoldDurations): HoldProposal | null {
  const { status, error } = failure;
  const lastError = `status ${status}: ${String(error.message ?? '').slice(0, 160)}`;
  const structuredQuota = typeof error.type === 'string' && QUOTA_MARKERS.includes(error.type);
  if (status === 429 || structuredQuota) {
    const resets = typeof error.resets_in_seconds === 'number' && error.resets_in_seconds > 0 ? error.resets_in_seconds : null;
    return { kind: 'quota', seconds: resets ?? durations.cooldownSeconds, lastError };
  }
  if (status === 401) return { kind: 'auth', seconds: durations.cooldownSeconds, lastError: `auth: ${lastError}` };
  if (status >= 500 || status === 0) return { kind: 'transient', seconds: Math.min(durations.transientSeconds, durations.cooldownSeconds), lastError };
  return null;
}

/** Whether `hold` still keeps its account out at monotonic `now` and epoch `wallNow`. */
export function holdActive(hold: Hold | null, now: number, wallNow: number): hold is Hold {
  if (!hold) return false;
  if (now >= hold.until) return false;
  return hold.wallUntil === null || wallNow < hold.wallUntil;
}

/** The hold after `proposal` at monotonic `now`: extended, never shortened; the kind follows the evidence. */
export function extendHold(current: Hold | null, proposal: HoldProposal, now: number, wallNow: number): Hold {
  const until = now + proposal.seconds * 1000;
  const wallUntil = wallNow + proposal.seconds * 1000;
  const live = holdActive(current, now, wallNow) ? current : null;
  return {
    kind: proposal.kind,
    since: now,
    until: Math.max(live?.until ?? 0, until),
    wallUntil: live ? (live.wallUntil === null ? null : Math.max(live.wallUntil, wallUntil)) : wallUntil,
    lastError: proposal.lastError,
  };
}

/** Seconds left on a hold (0 when over). */
export function holdSecondsLeft(hold: Hold | null, now: number, wallNow: number): number {
  if (!holdActive(hold, now, wallNow)) return 0;
  const monotonic = (hold.until - now) / 1000;
  return hold.wallUntil === null ? monotonic : Math.min(monotonic, (hold.wallUntil - wallNow) / 1000);
}
