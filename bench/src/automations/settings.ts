/** Automations benchmark settings, from the environment. */
import { envInt } from '../ledger/kit.js';

export const VARIANTS = ['stand-in', 'runs'] as const;
export type Variant = (typeof VARIANTS)[number];

export interface AutomationsBenchSettings {
  /** Schedule definitions (`schedule@1` every minute) of variant `stand-in`. */
  definitions: number;
  /** Their first ticks are spread evenly over this many seconds (60: a steady rate of definitions/60 per second; 0: one burst a minute). */
  spreadSeconds: number;
  /** Minutes of fires measured. */
  minutes: number;
  /** Seconds of the baseline: the same kernel with no definitions, the clock running. */
  baselineSeconds: number;
  /** POST /automations in flight while the definitions are created. */
  createConcurrency: number;
  /** Definitions of variant `runs` (real runs of a one-node flow: a rate the runtime can carry on a shared machine). */
  runsDefinitions: number;
  /** Minutes measured in variant `runs`. */
  runsMinutes: number;
  /** `scheduler.*` of the automations plugin given to the kernel (empty: the engine's defaults). */
  scheduler: Record<string, number>;
  variants: Variant[];
}

export function automationsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AutomationsBenchSettings {
  const scheduler: Record<string, number> = {};
  for (const [key, name] of [['pollMs', 'BENCH_AUTOMATIONS_POLL_MS'], ['maxAdmissionsPerSecond', 'BENCH_AUTOMATIONS_MAX_ADMISSIONS'], ['batchSize', 'BENCH_AUTOMATIONS_BATCH']] as const) {
    if (env[name]) scheduler[key] = envInt(name, 1, env);
  }
  const variants = (env.BENCH_AUTOMATIONS_VARIANTS || VARIANTS.join(',')).split(',').map((v) => v.trim()).filter(Boolean);
  const unknown = variants.filter((v) => !(VARIANTS as readonly string[]).includes(v));
  if (unknown.length) throw new Error(`BENCH_AUTOMATIONS_VARIANTS: unknown variant ${unknown.join(', ')} (use ${VARIANTS.join(', ')}).`);
  const spread = env.BENCH_AUTOMATIONS_SPREAD_S;
  return {
    definitions: envInt('BENCH_AUTOMATIONS', 10_000, env),
    spreadSeconds: spread === '0' ? 0 : envInt('BENCH_AUTOMATIONS_SPREAD_S', 60, env),
    minutes: envInt('BENCH_AUTOMATIONS_MINUTES', 3, env),
    baselineSeconds: envInt('BENCH_AUTOMATIONS_BASELINE_S', 20, env),
    createConcurrency: envInt('BENCH_AUTOMATIONS_CREATE_CONCURRENCY', 8, env),
    runsDefinitions: envInt('BENCH_AUTOMATIONS_RUNS_DEFINITIONS', 1200, env),
    runsMinutes: envInt('BENCH_AUTOMATIONS_RUNS_MINUTES', 2, env),
    scheduler,
    variants: variants as Variant[],
  };
}
