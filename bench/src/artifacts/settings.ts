/** Settings of the artifacts benchmarks (environment; README "artifacts"). */
import { envInt } from '../ledger/kit.js';

export interface ArtifactsBenchSettings {
  /** Artifacts of the searching account. */
  artifacts: number;
  /** Artifacts of a second account in the same store (never part of the searched rows). */
  otherArtifacts: number;
  /** Measured requests per search kind (after 2 warm-ups). */
  queries: number;
  /** Size of the streamed file, MiB. */
  streamMiB: number;
  /** Downloads per side per round, and rounds (sides alternate). */
  downloads: number;
  rounds: number;
  /** Downloads in flight at once. */
  concurrency: number;
}

export function artifactsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ArtifactsBenchSettings {
  return {
    artifacts: envInt('BENCH_ARTIFACTS', 100_000, env),
    otherArtifacts: envInt('BENCH_OTHER_ARTIFACTS', 10_000, env),
    queries: envInt('BENCH_ARTIFACT_QUERIES', 20, env),
    streamMiB: envInt('BENCH_STREAM_MIB', 256, env),
    downloads: envInt('BENCH_STREAM_DOWNLOADS', 4, env),
    rounds: envInt('BENCH_STREAM_ROUNDS', 3, env),
    concurrency: envInt('BENCH_STREAM_CONCURRENCY', 2, env),
  };
}
