/**
 * Small helpers the ledger, stream and steps benchmarks share: settings from the environment,
 * a wall clock comparable across processes, number formatting, the PASS / BELOW TARGET line, and
 * a watch on the rest of the machine (a round during which other processes competed for the cores
 * is flagged, and left out of the medians when a clean round exists).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export { median, quantile } from '../inference/stats.js';

/** The repository root (bench/dist/<bench>/ → ../../..), where workspace packages resolve from. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A positive integer from the environment, or the fallback. */
export function envInt(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (got ${raw}).`);
  return value;
}

/**
 * Milliseconds since the epoch with sub-millisecond resolution. `timeOrigin + now()` of two
 * processes on one machine agree to a few microseconds, so a timestamp taken in a server child
 * can be subtracted from one taken in a client child.
 */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export interface Verdict {
  /** What is held to the target, in words. */
  label: string;
  pass: boolean;
  /** The figure and its bound, in words (`0.83x >= 0.50x`). */
  detail: string;
}

export function verdictLine(v: Verdict): string {
  return `target: ${v.label}: ${v.detail}: ${v.pass ? 'PASS' : 'BELOW TARGET'}`;
}

/** Runs a benchmark's main as `node bench/dist/<x>/run.js` does: exit 0 whatever the figures, 1 on a crash. */
export async function runAlone(name: string, main: () => Promise<unknown>): Promise<void> {
  try {
    await main();
  } catch (err) {
    console.error(`${name} benchmark crashed:`, err);
    process.exitCode = 1;
  }
}

/** Node version, cores and load average: benchmarks sharing the machine with other work say so. */
export function machineLine(): string {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return `node ${process.version}, ${os.availableParallelism()} cores, load average ${load} (1/5/15 min) at start`;
}

/** Busy and total CPU time of the whole machine so far (Linux `/proc/stat`, in clock ticks); null elsewhere. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return null;
  }
}

/** Cores' worth of CPU the whole machine used between two `machineCpu()` readings (NaN when unknown). */
function busyCores(before: ReturnType<typeof machineCpu>, after: ReturnType<typeof machineCpu>): number {
  if (!before || !after || after.total === before.total) return Number.NaN;
  return ((after.busy - before.busy) / (after.total - before.total)) * os.availableParallelism();
}

/**
 * Rounds during which the rest of the machine used more than this many cores are flagged as
 * contended: `BENCH_MAX_OTHER_CORES`, else the benchmark's own default (the disk-bound ledger
 * benchmark allows more, since the kernel's journal threads count as other load).
 */
export function contendedCores(fallback = 0.25): number {
  return envFloat('BENCH_MAX_OTHER_CORES', fallback);
}

/**
 * Starts watching the machine; `stop(ownCpuMs)` returns the cores' worth of CPU that processes
 * other than the benchmark's own used meanwhile (machine busy time minus `ownCpuMs`, the CPU the
 * benchmark's processes report for the same span). Well above 0: other work competed for the cores.
 */
export function watchOtherLoad(): { stop(ownCpuMs: number): number } {
  const before = machineCpu();
  const t0 = performance.now();
  return {
    stop(ownCpuMs: number): number {
      const seconds = (performance.now() - t0) / 1000;
      return Math.max(0, busyCores(before, machineCpu()) - ownCpuMs / 1000 / seconds);
    },
  };
}

/**
 * The measurements a median is taken over: those not contended, when there is at least one;
 * otherwise all of them (and the caller says so).
 */
export function uncontended<T extends { otherCores: number }>(list: T[], limit: number): { kept: T[]; allContended: boolean } {
  const clean = list.filter((m) => !(m.otherCores > limit));
  return clean.length ? { kept: clean, allContended: false } : { kept: list, allContended: list.length > 0 };
}

function envFloat(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number (got ${raw}).`);
  return value;
}

/** The soft limit on open files of this process (children inherit it; Linux `/proc/self/limits`), or null. */
export function openFilesLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}
