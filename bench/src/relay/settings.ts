/** Relay benchmark settings, from the environment. */
import { cpuProfDirFromEnv, serversFromEnv } from '../common/server-settings.js';
import { envInt } from '../ledger/kit.js';

/** The sides compared: the upstream called directly, a minimal `http.request` relay, the Keel relay. */
export const RELAY_SIDE_IDS = ['direct', 'minimal', 'keel'] as const;
export type RelaySideId = (typeof RELAY_SIDE_IDS)[number];

/** The two kinds of call measured: a JSON chat completion and a short SSE one. */
export const RELAY_MODES = ['json', 'stream'] as const;
export type RelayMode = (typeof RELAY_MODES)[number];

export interface RelayBenchSettings {
  /** Rounds, each measuring every side in an order rotated per round; figures are medians over rounds. */
  rounds: number;
  /** Measured calls per side per mode per round in the latency phase (one call in flight, sides interleaved call by call). */
  latencyCalls: number;
  /** Calls per side discarded before them (JIT, connections). */
  latencyWarmupCalls: number;
  /** Keep-alive clients of the throughput phase, each with one call in flight. */
  connections: number;
  /** Seconds measured per side per mode per round in the throughput phase. */
  durationS: number;
  /** Seconds of discarded load before each throughput measurement. */
  warmupS: number;
  /** Content deltas in the upstream's stream (and words in its JSON answer). */
  deltas: number;
  modes: RelayMode[];
  sides: RelaySideId[];
  /** When set, the relay children run with `--cpu-prof` and write their profiles here. */
  cpuProfDir: string | null;
}

export function relaySettingsFromEnv(env: NodeJS.ProcessEnv = process.env): RelayBenchSettings {
  const modes = (env.BENCH_RELAY_MODES || RELAY_MODES.join(',')).split(',').map((m) => m.trim()).filter(Boolean);
  const unknown = modes.filter((m) => !(RELAY_MODES as readonly string[]).includes(m));
  if (unknown.length) throw new Error(`BENCH_RELAY_MODES: unknown mode ${unknown.join(', ')} (use ${RELAY_MODES.join(', ')}).`);
  const sides = serversFromEnv('BENCH_RELAY_SIDES', RELAY_SIDE_IDS, env);
  if (!sides.includes('direct')) sides.unshift('direct');
  return {
    rounds: envInt('BENCH_RELAY_ROUNDS', 3, env),
    latencyCalls: envInt('BENCH_RELAY_LATENCY_CALLS', 1500, env),
    latencyWarmupCalls: envInt('BENCH_RELAY_LATENCY_WARMUP', 200, env),
    connections: envInt('BENCH_RELAY_CONNECTIONS', 32, env),
    durationS: envInt('BENCH_RELAY_DURATION', 5, env),
    warmupS: envInt('BENCH_RELAY_WARMUP', 1, env),
    deltas: envInt('BENCH_RELAY_DELTAS', 8, env),
    modes: modes as RelayMode[],
    sides,
    cpuProfDir: cpuProfDirFromEnv(env),
  };
}

/** What the parent tells the server children through the environment. */
export const CHILD_ENV = {
  /** `http://127.0.0.1:<port>/v1` of the raw upstream. */
  upstreamBase: 'KEEL_BENCH_RELAY_UPSTREAM',
  /** The upstream's API key (the relays send it upstream). */
  upstreamKey: 'KEEL_BENCH_RELAY_UPSTREAM_KEY',
  /** The Keel relay's token. */
  relayToken: 'KEEL_BENCH_RELAY_TOKEN',
  deltas: 'KEEL_BENCH_RELAY_DELTAS',
} as const;

/** The one model the upstream serves. */
export const BENCH_MODEL = 'bench-chat';
