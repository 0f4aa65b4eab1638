/** bench/peers settings, from the environment. */
import { serversFromEnv } from '../common/server-settings.js';
import { envInt } from '../ledger/kit.js';

export const ENGINE_IDS = ['keel', 'restate', 'dbos'] as const;
export type EngineId = (typeof ENGINE_IDS)[number];
export const FLOW_KINDS = ['recorded', 'inMemory'] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

export interface PeersBenchSettings {
  engines: EngineId[];
  flows: FlowKind[];
  /** Rounds; each starts every engine afresh, in an order rotated each round. Figures are medians over rounds. */
  rounds: number;
  /** Runs one at a time per flow per round (the p50/p99 at 1 client). */
  runs: number;
  /** Discarded runs per flow before measuring, each round. */
  warmupRuns: number;
  /** Concurrent clients of the throughput levels. */
  clients: number[];
  /** Seconds of load per throughput level (runs started after it are not started). */
  seconds: number;
  /** Runs per sync-counting phase (at least 4 per client). */
  syncRuns: number;
  /** Concurrent clients of the sync-counting phases (strace attached). */
  syncClients: number[];
  /** Where Debian's PostgreSQL binaries are (initdb, pg_ctl, postgres). */
  pgBin: string;
}

export function peersSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PeersBenchSettings {
  return {
    engines: serversFromEnv('BENCH_PEERS_ENGINES', ENGINE_IDS, env),
    flows: serversFromEnv('BENCH_PEERS_FLOWS', FLOW_KINDS, env),
    rounds: envInt('BENCH_PEERS_ROUNDS', 3, env),
    runs: envInt('BENCH_PEERS_RUNS', 200, env),
    warmupRuns: envInt('BENCH_PEERS_WARMUP', 20, env),
    clients: envInts('BENCH_PEERS_CLIENTS', [8, 32, 64], env),
    seconds: envInt('BENCH_PEERS_SECONDS', 5, env),
    syncRuns: envInt('BENCH_PEERS_SYNC_RUNS', 100, env),
    syncClients: envInts('BENCH_PEERS_SYNC_CLIENTS', [1, 8, 32, 64], env),
    pgBin: env.BENCH_PEERS_PG_BIN || '/usr/lib/postgresql/15/bin',
  };
}

/** A comma-separated list of positive integers, or the fallback. */
function envInts(name: string, fallback: number[], env: NodeJS.ProcessEnv): number[] {
  const raw = env[name];
  if (!raw) return fallback;
  const values = raw.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (!values.length || values.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`${name} must be a comma-separated list of positive integers (got ${raw}).`);
  return values;
}
