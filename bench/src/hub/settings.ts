/** Hub benchmark settings, from the environment. */
import { cpuProfDirFromEnv, serversFromEnv } from '../common/server-settings.js';
import { envInt } from '../ledger/kit.js';

export const HUB_SERVER_IDS = ['raw', 'keel'] as const;
export type HubServerId = (typeof HUB_SERVER_IDS)[number];

export interface HubBenchSettings {
  /** Live sockets, one per channel member (the poster is a member too, without a socket). */
  members: number;
  /** Posting rate of the latency phase, messages/s. */
  ratePerSec: number;
  /** Messages of the measured latency phase (count / rate = its seconds). */
  messages: number;
  /** Messages posted at the rate before it, discarded (JIT, first commits). */
  warmupMessages: number;
  /** Messages of the throughput phase: posted as fast as `burstConcurrency` requests in flight allow. */
  burstMessages: number;
  burstConcurrency: number;
  /** Rounds, each with fresh server and socket processes; figures are medians over rounds. */
  rounds: number;
  /** Sockets opened at once. */
  connectBatch: number;
  servers: HubServerId[];
  /** When set, server children run with `--cpu-prof` and write their profiles here. */
  cpuProfDir: string | null;
}

export function hubSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HubBenchSettings {
  return {
    members: envInt('BENCH_HUB_MEMBERS', 100, env),
    ratePerSec: envInt('BENCH_HUB_RATE', 200, env),
    messages: envInt('BENCH_HUB_MESSAGES', 2000, env),
    warmupMessages: envInt('BENCH_HUB_WARMUP_MESSAGES', 400, env),
    burstMessages: envInt('BENCH_HUB_BURST_MESSAGES', 4000, env),
    burstConcurrency: envInt('BENCH_HUB_CONCURRENCY', 32, env),
    rounds: envInt('BENCH_HUB_ROUNDS', 3, env),
    connectBatch: envInt('BENCH_HUB_CONNECT_BATCH', 50, env),
    servers: serversFromEnv('BENCH_HUB_SERVERS', HUB_SERVER_IDS, env),
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

/** The admin token the parent gives the keel child (through the environment, as the other benchmarks do). */
export const HUB_TOKEN_ENV = 'KEEL_BENCH_HUB_TOKEN';

/** The raw server's one channel and its sender (the keel side uses a real room and a real seat). */
export const RAW_CHANNEL = 'bench';
export const RAW_SENDER = 'poster';

/** The folder holding `glove-sif-50d/` the search benchmark's keel child serves (unset: keyword search only). */
export const SEARCH_EMBEDDINGS_DIR_ENV = 'KEEL_BENCH_HUB_EMBEDDINGS_DIR';

export interface HubSearchBenchSettings {
  /** Messages in the hub before searching, spread over `channels` rooms. */
  messages: number;
  channels: number;
  /** Posts in flight while loading them. */
  loadConcurrency: number;
  /** Measured searches per mode (each after one discarded warm-up search). */
  queries: number;
  /** Longest wait for the semantic index to fill, seconds. */
  fillTimeoutSec: number;
}

export function hubSearchSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): HubSearchBenchSettings {
  return {
    messages: envInt('BENCH_HUB_SEARCH_MESSAGES', 100_000, env),
    channels: envInt('BENCH_HUB_SEARCH_CHANNELS', 10, env),
    loadConcurrency: envInt('BENCH_HUB_SEARCH_CONCURRENCY', 32, env),
    queries: envInt('BENCH_HUB_SEARCH_QUERIES', 200, env),
    fillTimeoutSec: envInt('BENCH_HUB_SEARCH_FILL_TIMEOUT', 1800, env),
  };
}
