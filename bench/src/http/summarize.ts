/** Reduces rounds to one figure per server (median per metric) and the kernel's ratios. */
import type { Measurement } from './measure.js';
import type { ServerId } from './server-catalogue.js';

/** The kernel must keep at least this share of plain Koa + router throughput. */
export const KERNEL_VS_KOA_TARGET = 0.7;

export interface Ratios {
  kernelVsKoa: number | null;
  kernelVsRaw: number | null;
  koaVsRaw: number | null;
}

export interface HttpBenchSummary {
  perServer: Partial<Record<ServerId, Measurement>>;
  /** Throughput ratios (req/s over req/s): the headline figures. */
  ratios: Ratios;
  /**
   * The same ratios from server CPU per request (inverted, so > 1 still means faster): what the
   * throughput ratio would be if every server had a core to itself. Steadier on a noisy machine.
   */
  cpuRatios: Ratios;
  /** null when the kernel or Koa was not measured. */
  meetsTarget: boolean | null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(runs: Partial<Record<ServerId, Measurement[]>>): HttpBenchSummary {
  const perServer: Partial<Record<ServerId, Measurement>> = {};
  for (const [id, list] of Object.entries(runs) as Array<[ServerId, Measurement[]]>) {
    if (!list.length) continue;
    const mid = (pick: (m: Measurement) => number) => median(list.map(pick));
    perServer[id] = {
      reqPerSec: mid((m) => m.reqPerSec),
      p50Ms: mid((m) => m.p50Ms),
      p99Ms: mid((m) => m.p99Ms),
      cpuMicrosPerReq: mid((m) => m.cpuMicrosPerReq),
      failures: list.reduce((sum, m) => sum + m.failures, 0),
    };
  }
  const ratios = ratiosBy(perServer, (m) => m.reqPerSec);
  return {
    perServer,
    ratios,
    cpuRatios: ratiosBy(perServer, (m) => (m.cpuMicrosPerReq > 0 ? 1 / m.cpuMicrosPerReq : 0)),
    meetsTarget: ratios.kernelVsKoa === null ? null : ratios.kernelVsKoa >= KERNEL_VS_KOA_TARGET,
  };
}

function ratiosBy(perServer: Partial<Record<ServerId, Measurement>>, speed: (m: Measurement) => number): Ratios {
  const ratio = (a: ServerId, b: ServerId) => {
    const x = perServer[a];
    const y = perServer[b];
    return x && y && speed(y) > 0 ? speed(x) / speed(y) : null;
  };
  return { kernelVsKoa: ratio('kernel', 'koa'), kernelVsRaw: ratio('kernel', 'raw'), koaVsRaw: ratio('koa', 'raw') };
}
