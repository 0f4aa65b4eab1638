/**
 * Every expected fire accounted for: an automation's occurrence rows (as `GET
 * /automations/{id}/occurrences` lists them) against the ticks that were due. A fired row stands for
 * its tick and, under `coalesce`, the ticks folded into it (`coalesced.first_tick` up to its own); a
 * skipped row for its range. Each due tick must be covered exactly once.
 */

/** The fields of an occurrence row the benchmark reads. */
export interface OccurrenceRow {
  index: number;
  status: string;
  fired_at: string;
  scheduled_at: string | null;
  trigger: { source_id: string; summary: string };
  coalesced: { first_tick: number; last_tick: number; missed_count: number; reason: string } | null;
}

export interface FireAccount {
  /** Ticks due by the time the clock was pinned. */
  expected: number;
  /** Occurrences that fired (every status but skipped). */
  fired: number;
  /** Ticks folded into a fired occurrence (misfire `coalesce`). */
  coalesced: number;
  /** Ticks on skipped rows. */
  skipped: number;
  missing: number;
  duplicated: number;
  /** Ticks covered that were not due yet (must be 0). */
  extra: number;
  /** Fired occurrences not finished yet (admitted, running, backoff). */
  unfinished: number;
  statuses: Record<string, number>;
}

export function emptyAccount(): FireAccount {
  return { expected: 0, fired: 0, coalesced: 0, skipped: 0, missing: 0, duplicated: 0, extra: 0, unfinished: 0, statuses: {} };
}

const FINISHED = new Set(['completed', 'failed', 'cancelled', 'skipped', 'waiting']);

/** Adds one automation's rows to `account`, given that ticks 0..due-1 were due. */
export function accountFor(account: FireAccount, rows: OccurrenceRow[], due: number): void {
  account.expected += due;
  const covered = new Map<number, number>();
  const cover = (tick: number) => covered.set(tick, (covered.get(tick) ?? 0) + 1);
  for (const row of rows) {
    account.statuses[row.status] = (account.statuses[row.status] ?? 0) + 1;
    const tick = Number(/tick (\d+)/.exec(row.trigger.summary)?.[1] ?? Number.NaN);
    if (row.status === 'skipped') {
      const first = row.coalesced?.first_tick ?? tick;
      const last = row.coalesced?.last_tick ?? tick;
      for (let t = first; t <= last; t++) cover(t);
      account.skipped += last - first + 1;
      continue;
    }
    account.fired++;
    if (!FINISHED.has(row.status)) account.unfinished++;
    if (row.coalesced) {
      for (let t = row.coalesced.first_tick; t < row.coalesced.last_tick; t++) cover(t);
      account.coalesced += row.coalesced.last_tick - row.coalesced.first_tick;
    }
    cover(tick);
  }
  for (let t = 0; t < due; t++) {
    const n = covered.get(t) ?? 0;
    if (n === 0) account.missing++;
    if (n > 1) account.duplicated += n - 1;
  }
  for (const t of covered.keys()) if (!(t >= 0 && t < due)) account.extra++;
}
