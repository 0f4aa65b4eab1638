/**
 * Driving an engine from this process: runs one at a time (latency), and N clients each running
 * back to back for a fixed time (a closed loop: throughput and latency under load).
 */
import { quantile } from '../ledger/kit.js';

export interface LevelFigures {
  clients: number;
  /** Runs completed within the level. */
  runs: number;
  runsPerS: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  /** The first failure's message, when a run failed. */
  firstError: string | null;
}

/** `count` runs one after the other; answers each run's duration in ms. */
export async function oneAtATime(run: () => Promise<void>, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/**
 * `clients` concurrent clients, each starting its next run when the last one completed, for
 * `seconds` (no run starts after that; the level ends when the last one completes). One discarded
 * run per client first, so every client has its connection open. A client whose run fails stops.
 */
export async function closedLoop(run: () => Promise<void>, clients: number, seconds: number): Promise<LevelFigures> {
  await Promise.all(Array.from({ length: clients }, () => run()));
  const samples: number[] = [];
  let failed = 0;
  let firstError: string | null = null;
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      try {
        await run();
      } catch (err) {
        failed++;
        firstError ??= (err as Error).message;
        return;
      }
      samples.push(performance.now() - start);
    }
  }));
  const elapsedS = (performance.now() - t0) / 1000;
  return { clients, runs: samples.length, runsPerS: samples.length / elapsedS, p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99), failed, firstError };
}

/** `total` runs by `clients` concurrent clients (each taking the next run until none is left). */
export async function fixedRuns(run: () => Promise<void>, clients: number, total: number): Promise<void> {
  let left = total;
  await Promise.all(Array.from({ length: Math.min(clients, total) }, async () => {
    while (left > 0) {
      left--;
      await run();
    }
  }));
}
