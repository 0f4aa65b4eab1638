/** Stream benchmark settings, from the environment; and how the parent talks to its children. */
import { cpuProfDirFromEnv, serversFromEnv } from '../common/server-settings.js';
import { envInt } from '../ledger/kit.js';

export const STREAM_SERVER_IDS = ['raw', 'keel'] as const;
export type StreamServerId = (typeof STREAM_SERVER_IDS)[number];

export interface StreamBenchSettings {
  subscribers: number;
  ratePerSec: number;
  /** Events of the measured run (count / rate = its seconds). */
  events: number;
  /** Events of the discarded warm-up run before it (same subscribers count, its own run). */
  warmupEvents: number;
  /** Rounds, each with fresh server and client processes; figures are medians over rounds. */
  rounds: number;
  /** Subscribers connecting at once (the server's listen backlog is finite). */
  connectBatch: number;
  servers: StreamServerId[];
  /** When set, server children run with `--cpu-prof` and write their profiles here. */
  cpuProfDir: string | null;
}

export function streamSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): StreamBenchSettings {
  return {
    subscribers: envInt('BENCH_STREAM_SUBSCRIBERS', 1000, env),
    ratePerSec: envInt('BENCH_STREAM_RATE', 50, env),
    events: envInt('BENCH_STREAM_EVENTS', 500, env),
    warmupEvents: envInt('BENCH_STREAM_WARMUP_EVENTS', 100, env),
    rounds: envInt('BENCH_STREAM_ROUNDS', 3, env),
    connectBatch: envInt('BENCH_STREAM_CONNECT_BATCH', 100, env),
    servers: serversFromEnv('BENCH_STREAM_SERVERS', STREAM_SERVER_IDS, env),
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

/** The admin token the parent gives the keel child (through the environment, as the inference benchmark does). */
export const STREAM_TOKEN_ENV = 'KEEL_BENCH_STREAM_TOKEN';

/** What `POST <runs>` answers on both servers. */
export interface CreatedRun {
  run_id: string;
  /** Path of the run's SSE stream on that server. */
  stream_path: string;
}
