/** History benchmark settings, from the environment. */
import { envInt } from '../ledger/kit.js';

export interface HistoryBenchSettings {
  /** Turns the session holds before measuring (every one completed, with a prompt and an answer). */
  turns: number;
  /** Of those, how many of the newest were themselves started with `use_session_history` (as a chat client does). */
  seededTurns: number;
  /** Measured starts per mode (with / without `use_session_history`, alternating). */
  samples: number;
  /** Discarded starts per mode before measuring. */
  warmup: number;
  /** Characters of each turn's prompt and answer. */
  promptChars: number;
  answerChars: number;
  /** Starts in flight at once while the session is filled. */
  fillConcurrency: number;
}

export function historySettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HistoryBenchSettings {
  return {
    turns: envInt('BENCH_HISTORY_TURNS', 2000, env),
    seededTurns: envInt('BENCH_HISTORY_SEEDED_TURNS', 200, env),
    samples: envInt('BENCH_HISTORY_SAMPLES', 40, env),
    warmup: envInt('BENCH_HISTORY_WARMUP', 5, env),
    promptChars: envInt('BENCH_HISTORY_PROMPT_CHARS', 200, env),
    answerChars: envInt('BENCH_HISTORY_ANSWER_CHARS', 800, env),
    fillConcurrency: envInt('BENCH_HISTORY_FILL_CONCURRENCY', 8, env),
  };
}
