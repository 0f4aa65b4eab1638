/**
 * What the scheduler does with the ticks of a schedule that are due (pure; the engine applies it).
 * Every expected fire is accounted for: a due tick either fires, is coalesced into the occurrence of
 * a later tick (`coalesced` on that occurrence), or is recorded in a `skipped` occurrence row with
 * the reason. Serial: while an occurrence is current nothing fires; `skip` records the ticks that
 * came due meanwhile at once, `coalesce` and `all` keep them for when it ends.
 */
import type { MisfirePolicy } from '../model.js';

/** Why ticks did not fire on time. */
export type MisfireReason =
  /** They came due while no scheduler ran (the server was down or had no runner). */
  | 'server_down'
  /** They came due while the previous occurrence (or its retries) still ran. */
  | 'occurrence_running'
  /** Policy `all`: more missed ticks than `scheduler.maxCatchUp`; the oldest are skipped. */
  | 'catch_up_limit'
  /** Policy `skip`: the tick was more than `scheduler.misfireGraceMs` late when it could fire. */
  | 'late';

export interface TickRange {
  first_tick: number;
  last_tick: number;
  missed_count: number;
  reason: MisfireReason;
}

export interface DueTicks {
  /** The first pending tick (index) that is due. */
  first: number;
  /** The last tick that is due (index, `first ≤ last`). */
  last: number;
  /** When `first` and `last` were due (epoch ms). */
  firstAtMs: number;
  lastAtMs: number;
}

export interface MisfireInput {
  policy: MisfirePolicy;
  due: DueTicks;
  nowMs: number;
  /** An occurrence of this automation is current (running, or waiting for a retry). */
  busy: boolean;
  /** Policy `all`: the most missed ticks caught up at once (`scheduler.maxCatchUp`). */
  maxCatchUp: number;
  /** A tick at most this late counts as on time (`scheduler.misfireGraceMs`). */
  graceMs: number;
  /** When this scheduler started (ticks due before were missed while none ran). */
  engineStartedMs: number;
  /** When the automation's last occurrence ended (epoch ms), or null. */
  lastFinishedMs: number | null;
}

export interface MisfireDecision {
  /** Ticks recorded as one `skipped` occurrence row, or null. */
  skipped: TickRange | null;
  /** The tick that fires now (with the ticks it stands for under `coalesce`), or null. */
  fire: { tick: number; coalesced: TickRange | null } | null;
  /** The first tick still pending afterwards: every tick below it is accounted for. */
  nextTick: number;
}

/** Decides what the due ticks become now. */
export function decideDueTicks(input: MisfireInput): MisfireDecision {
  const { due, policy } = input;
  const count = due.last - due.first + 1;
  const reason = missedReason(input);
  if (input.busy) {
    if (policy !== 'skip') return { skipped: null, fire: null, nextTick: due.first };
    return { skipped: range(due.first, due.last, reason === 'server_down' ? reason : 'occurrence_running'), fire: null, nextTick: due.last + 1 };
  }
  switch (policy) {
    case 'coalesce':
      return { skipped: null, fire: { tick: due.last, coalesced: count > 1 ? range(due.first, due.last, reason, count - 1) : null }, nextTick: due.last + 1 };
    case 'skip': {
      const onTime = input.nowMs - due.lastAtMs <= input.graceMs;
      if (!onTime) return { skipped: range(due.first, due.last, count > 1 ? reason : 'late'), fire: null, nextTick: due.last + 1 };
      return { skipped: count > 1 ? range(due.first, due.last - 1, reason) : null, fire: { tick: due.last, coalesced: null }, nextTick: due.last + 1 };
    }
    case 'all': {
      const max = Math.max(1, input.maxCatchUp);
      if (count <= max) return { skipped: null, fire: { tick: due.first, coalesced: null }, nextTick: due.first + 1 };
      const firstKept = due.last - max + 1;
      return { skipped: range(due.first, firstKept - 1, 'catch_up_limit'), fire: { tick: firstKept, coalesced: null }, nextTick: firstKept + 1 };
    }
  }
}

function missedReason(input: MisfireInput): MisfireReason {
  if (input.due.firstAtMs < input.engineStartedMs) return 'server_down';
  if (input.lastFinishedMs !== null && input.lastFinishedMs >= input.due.firstAtMs) return 'occurrence_running';
  return 'late';
}

function range(first: number, last: number, reason: MisfireReason, missed = last - first + 1): TickRange {
  return { first_tick: first, last_tick: last, missed_count: missed, reason };
}
