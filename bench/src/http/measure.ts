/** One autocannon run against one URL (after a discarded warm-up), reduced to the figures we report. */
import autocannon from 'autocannon';
import type { HttpBenchSettings } from './settings.js';

export interface Measurement {
  /** Mean of autocannon's per-second request counts. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Socket errors, timeouts and non-2xx answers: any of these makes the run suspect. */
  failures: number;
}

export async function measure(url: string, settings: HttpBenchSettings): Promise<Measurement> {
  const result = await autocannon({
    url,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: settings.durationS,
    warmup: { connections: settings.connections, duration: settings.warmupS },
  });
  return {
    reqPerSec: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}
