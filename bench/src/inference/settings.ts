/** Settings of the inference benchmark, from the environment (same style as the http benchmark). */
import { cpuProfDirFromEnv } from '../common/server-settings.js';
import { positiveInt } from '../http/settings.js';

export interface InferenceBenchSettings {
  /** Measured repetitions per side (engine alone, kernel) and per workload. */
  reps: number;
  /** Discarded repetitions per side before measuring (model load, JIT, chat-template parsing). */
  warmup: number;
  /** max_tokens of the story request (the answer is 97 tokens + end of turn, so 128 is enough). */
  maxTokens: number;
  /** max_tokens of the long generation (stories260K from ../shared, which never stops early). */
  longMaxTokens: number;
  /** Seconds of back-to-back streamed generations while `/api/health` is probed (and of the idle baseline). */
  healthS: number;
  /** Pause between two sequential health probes, in milliseconds. */
  healthIntervalMs: number;
  /** Texts per embeddings request. */
  embedBatch: number;
  /** Measured embeddings requests per side. */
  embedReps: number;
  /** When set, the kernel child runs with `--cpu-prof` and writes its profile here. */
  cpuProfDir: string | null;
}

export function inferenceSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): InferenceBenchSettings {
  return {
    reps: positiveInt(env, 'BENCH_INFERENCE_REPS', 20),
    warmup: positiveInt(env, 'BENCH_INFERENCE_WARMUP', 3),
    maxTokens: positiveInt(env, 'BENCH_INFERENCE_MAX_TOKENS', 128),
    longMaxTokens: positiveInt(env, 'BENCH_INFERENCE_LONG_MAX_TOKENS', 400),
    healthS: positiveInt(env, 'BENCH_INFERENCE_HEALTH_S', 10),
    healthIntervalMs: positiveInt(env, 'BENCH_INFERENCE_HEALTH_INTERVAL_MS', 5),
    embedBatch: positiveInt(env, 'BENCH_INFERENCE_EMBED_BATCH', 64),
    embedReps: positiveInt(env, 'BENCH_INFERENCE_EMBED_REPS', 30),
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

