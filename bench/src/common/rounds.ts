/**
 * Rounds of a same-run comparison: every server measured once per round, in an order rotated each
 * round so that drift (thermal, noisy neighbours) does not always land on the same server; figures
 * are medians over the rounds no other process contended (all of them when none is clean).
 */
import { median, uncontended } from '../ledger/kit.js';

/** `items` rotated left by `by` places. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length ? by % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** Measures every server once per round, printing `line(round, id, m)` (rounds count from 1) after each; answers each server's measurements. */
export async function measureRounds<Id extends string, M>(
  rounds: number, servers: readonly Id[], measure: (id: Id) => Promise<M>, line: (round: number, id: Id, m: M) => string,
): Promise<Partial<Record<Id, M[]>>> {
  const runs: Partial<Record<Id, M[]>> = {};
  for (let round = 0; round < rounds; round++) {
    for (const id of rotate(servers, round)) {
      const m = await measure(id);
      (runs[id] ??= []).push(m);
      console.log(line(round + 1, id, m));
    }
  }
  return runs;
}

/** How many rounds a server's medians are over. */
export interface RoundsUsed {
  /** Rounds the medians are over (contended rounds are left out when a clean one exists). */
  roundsUsed: number;
  roundsTotal: number;
  /** Every round was contended: the medians are over all of them and are not trustworthy. */
  allContended: boolean;
}

/** A server's rounds: `mid(pick)` is the median of a figure over the rounds kept; `rounds` says how many those are. */
export function keptRounds<M extends { otherCores: number }>(list: M[], contendedCores: number): { mid: (pick: (m: M) => number) => number; rounds: RoundsUsed } {
  const { kept, allContended } = uncontended(list, contendedCores);
  return { mid: (pick) => median(kept.map(pick)), rounds: { roundsUsed: kept.length, roundsTotal: list.length, allContended } };
}

/** The summary's notes on a server's rounds: some left out, or all contended. */
export function roundsNotes(label: string, r: RoundsUsed, contendedCores: number): string[] {
  const notes: string[] = [];
  if (r.roundsUsed < r.roundsTotal) notes.push(`${label}: median over ${r.roundsUsed} of ${r.roundsTotal} rounds (rounds with other load > ${contendedCores} cores left out)`);
  if (r.allContended) notes.push(`${label}: every round was contended (other load > ${contendedCores} cores): the figures are not trustworthy`);
  return notes;
}
