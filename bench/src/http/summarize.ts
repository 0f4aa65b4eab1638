/** Reduces rounds to one figure per server (median per metric) and the kernel's ratios. */
import type { Measurement } from './measure.js';
import type { ServerId } from './server-catalogue.js';

/** The kernel must keep at least this share of plain Koa + router throughput. */
export const KERNEL_VS_KOA_TARGET = 0.7;

export interface HttpBenchSummary {
  perServer: Partial<Record<ServerId, Measurement>>;
  ratios: { kernelVsKoa: number | null; kernelVsRaw: number | null; koaVsRaw: number | null };
  /** null when the kernel or Koa was not measured. */
  meetsTarget: boolean | null;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(runs: Partial<Record<ServerId, Measurement[]>>): HttpBenchSummary {
  const perServer: Partial<Record<ServerId, Measurement>> = {};
  for (const [id, list] of Object.entries(runs) as Array<[ServerId, Measurement[]]>) {
    if (!list.length) continue;
    perServer[id] = {
      reqPerSec: median(list.map((m) => m.reqPerSec)),
      p50Ms: median(list.map((m) => m.p50Ms)),
      p99Ms: median(list.map((m) => m.p99Ms)),
      failures: list.reduce((sum, m) => sum + m.failures, 0),
    };
  }
  const ratio = (a: ServerId, b: ServerId) => {
    const x = perServer[a];
    const y = perServer[b];
    return x && y && y.reqPerSec > 0 ? x.reqPerSec / y.reqPerSec : null;
  };
  const kernelVsKoa = ratio('kernel', 'koa');
  return {
    perServer,
    ratios: { kernelVsKoa, kernelVsRaw: ratio('kernel', 'raw'), koaVsRaw: ratio('koa', 'raw') },
    meetsTarget: kernelVsKoa === null ? null : kernelVsKoa >= KERNEL_VS_KOA_TARGET,
  };
}
