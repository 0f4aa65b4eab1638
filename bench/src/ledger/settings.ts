/** Ledger benchmark settings, from the environment. */
import { envInt } from './kit.js';

export interface LedgerBenchSettings {
  /** Concurrent runs in (a), each appending and awaiting one record at a time. */
  writers: number;
  /** Records each writer appends per round in (a). */
  appendsPerWriter: number;
  /** Records the single run appends per round in (b). */
  sequentialAppends: number;
  /** Measured rounds; figures are medians over rounds. A discarded warm-up round comes first. */
  rounds: number;
}

export function ledgerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): LedgerBenchSettings {
  return {
    writers: envInt('BENCH_LEDGER_WRITERS', 64, env),
    appendsPerWriter: envInt('BENCH_LEDGER_APPENDS', 300, env),
    sequentialAppends: envInt('BENCH_LEDGER_SEQUENTIAL', 300, env),
    rounds: envInt('BENCH_LEDGER_ROUNDS', 5, env),
  };
}
