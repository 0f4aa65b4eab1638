/**
 * One server under load: a discarded warm-up run (JIT, connection set-up), then the measured
 * run, reduced to the figures we report. The server's own CPU time per request is taken too:
 * on a shared or noisy machine it is steadier than req/s, which also depends on how much CPU
 * the load generator gets.
 */
import autocannon from 'autocannon';
import type { HttpBenchSettings } from './settings.js';
import type { ServerProcess } from './spawn-server.js';

export interface Measurement {
  /** Mean of autocannon's per-second request counts. */
  reqPerSec: number;
  /** Latency percentiles; autocannon records whole milliseconds. */
  p50Ms: number;
  p99Ms: number;
  /** Server process CPU time (all threads, user + system) per completed request. */
  cpuMicrosPerReq: number;
  /** Socket errors, timeouts and non-2xx answers: any of these makes the run suspect. */
  failures: number;
}

export async function measure(url: string, server: ServerProcess, settings: HttpBenchSettings): Promise<Measurement> {
  const load = { url, connections: settings.connections, pipelining: settings.pipelining };
  await autocannon({ ...load, duration: settings.warmupS });
  const cpuBefore = await server.cpuMicros();
  const result = await autocannon({ ...load, duration: settings.durationS });
  const cpuAfter = await server.cpuMicros();
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMicrosPerReq: result.requests.total > 0 ? (cpuAfter - cpuBefore) / result.requests.total : 0,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}
