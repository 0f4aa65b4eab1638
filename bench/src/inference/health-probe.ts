/**
 * `GET /api/health` latency, probed by sequential requests with a short pause between them (one
 * request in flight at a time, so each figure is the latency a lone caller sees, not queueing
 * the probe made itself). Latencies are measured in the client with performance.now().
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KernelClient } from './kernel-client.js';
import { quantile } from './stats.js';

export interface HealthLatency {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Probes until `until` resolves; returns the latency figures. */
export async function probeHealth(client: KernelClient, intervalMs: number, until: Promise<unknown>): Promise<HealthLatency> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  const stop = () => {
    done = true;
  };
  until.then(stop, stop);
  const latencies: number[] = [];
  try {
    while (!done) {
      latencies.push(await client.health(agent));
      await sleep(intervalMs);
    }
  } finally {
    agent.destroy();
  }
  return { samples: latencies.length, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99), maxMs: Math.max(...latencies) };
}
