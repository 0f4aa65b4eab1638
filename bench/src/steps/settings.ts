/** Steps benchmark settings, from the environment. */
import { cpuProfDirFromEnv } from '../common/server-settings.js';
import { envInt } from '../ledger/kit.js';

export interface StepsBenchSettings {
  /** Runs per method per round (the two methods alternate run by run). */
  runs: number;
  /** Discarded runs at the start of each round (JIT, caches, LMDB pages). */
  warmupRuns: number;
  /** Rounds, each with a fresh server process; figures are medians over rounds. */
  rounds: number;
  cpuProfDir: string | null;
}

export function stepsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StepsBenchSettings {
  return {
    runs: envInt('BENCH_STEPS_RUNS', 100, env),
    warmupRuns: envInt('BENCH_STEPS_WARMUP', 20, env),
    rounds: envInt('BENCH_STEPS_ROUNDS', 3, env),
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

export const STEPS_TOKEN_ENV = 'KEEL_BENCH_STEPS_TOKEN';
/** The plugin packages the kernel child loads (a JSON list), set by the parent for the flow it measures. */
export const STEPS_PLUGINS_ENV = 'KEEL_BENCH_STEPS_PLUGINS';
