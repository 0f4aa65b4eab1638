/** Settings of the voice benchmark, from the environment (defaults suit a shared 2-core machine). */
import { envInt } from '../ledger/kit.js';

export interface VoiceBenchSettings {
  /** Rounds; figures are medians over the uncontended ones (`BENCH_ROUNDS`, default 3). */
  rounds: number;
  /** Requests per side, text and delivery in each round, the sides alternating (`VOICE_BENCH_REPEATS`, default 5). */
  repeats: number;
  /** Discarded requests per side before the first round (`VOICE_BENCH_WARMUP`, default 3). */
  warmup: number;
  /**
   * Pause before each request (`VOICE_BENCH_GAP_MS`, default 100): each side's thread prepares its next
   * module instance right after answering, and on two cores that work would otherwise land on the other
   * side's request. First audio is measured for a request that finds its engine idle, as a user's would.
   */
  gapMs: number;
  /**
   * Where the kernel runs (`VOICE_BENCH_KERNEL`): `child` (default, its own process and event loop) or
   * `inprocess` (this process: both sides then share one scheduler, so the difference is the route's
   * own cost rather than two processes' luck on a busy machine).
   */
  kernel: 'child' | 'inprocess';
  /** Only the engine side, no kernel (`VOICE_BENCH_ENGINE_ONLY=1`). */
  engineOnly: boolean;
}

export function voiceSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): VoiceBenchSettings {
  return {
    rounds: envInt('BENCH_ROUNDS', 3, env),
    repeats: envInt('VOICE_BENCH_REPEATS', 5, env),
    warmup: envInt('VOICE_BENCH_WARMUP', 3, env),
    gapMs: envInt('VOICE_BENCH_GAP_MS', 100, env),
    engineOnly: env['VOICE_BENCH_ENGINE_ONLY'] === '1',
    kernel: kernelPlace(env['VOICE_BENCH_KERNEL']),
  };
}

function kernelPlace(raw: string | undefined): 'child' | 'inprocess' {
  if (raw === undefined || raw === '' || raw === 'child') return 'child';
  if (raw === 'inprocess') return 'inprocess';
  throw new Error(`VOICE_BENCH_KERNEL must be child or inprocess (got ${raw}).`);
}

/** Environment variables the parent sets for the kernel child. */
export const CHILD_ENV = { token: 'KEEL_BENCH_VOICE_TOKEN' } as const;

/** First audio through the API must come within this many ms of the engine alone's. */
export const ADDED_FIRST_AUDIO_TARGET_MS = 20;

/** The texts spoken: one short sentence, and a paragraph the streamed delivery splits 60/240. */
export const TEXTS = {
  sentence: 'Turn the lights on in the kitchen, please.',
  paragraph:
    'The voice service speaks text with a local engine that runs in worker threads. '
    + 'Short replies start playing almost at once, because the first segment holds a single clause. '
    + 'Longer answers are packed into whole sentences of up to two hundred and forty characters, '
    + 'so the engine gets enough context to sound natural while the listener already hears the beginning. '
    + 'This paragraph is long enough to need several segments, which is what the streamed delivery is for. '
    + 'It ends here.',
} as const;
export type TextId = keyof typeof TEXTS;
