/** Benchmark settings, from the environment so CI and people can shorten or lengthen a run. */
import { cpuProfDirFromEnv, serversFromEnv } from '../common/server-settings.js';
import { SERVER_IDS, type ServerId } from './server-catalogue.js';

export interface HttpBenchSettings {
  connections: number;
  pipelining: number;
  /** Seconds measured per server per round. */
  durationS: number;
  /** Seconds of discarded load before each measurement (JIT, connection set-up). */
  warmupS: number;
  /** Rounds; each server's figures are the median over rounds. */
  rounds: number;
  servers: ServerId[];
  /** When set, server children run with `--cpu-prof` and write their profiles here. */
  cpuProfDir: string | null;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): HttpBenchSettings {
  return {
    connections: positiveInt(env, 'BENCH_CONNECTIONS', 50),
    pipelining: 1,
    durationS: positiveInt(env, 'BENCH_DURATION', 8),
    warmupS: positiveInt(env, 'BENCH_WARMUP', 2),
    rounds: positiveInt(env, 'BENCH_ROUNDS', 3),
    servers: serversFromEnv('BENCH_SERVERS', SERVER_IDS, env),
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

/** A positive integer from the environment, or the fallback when unset. */
export function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${raw}).`);
  return value;
}
