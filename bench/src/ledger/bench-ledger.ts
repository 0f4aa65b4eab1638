/**
 * The ledger benchmark: durable appends through Keel's LedgerStore against lmdb-js alone, in one
 * process run. (a) many runs appending at once (each run awaits its append before the next, so
 * concurrency comes from the runs, and commits are grouped); (b) one run appending alone (every
 * append is its own synced commit). Each round measures both sides, the order alternating; the
 * first round is a discarded warm-up; figures are medians over the measured rounds.
 */
import { contendedCores, fmt, machineLine, median, quantile, uncontended, verdictLine, watchOtherLoad, type Verdict } from './kit.js';
import { RunRecords } from './records.js';
import { ledgerSettingsFromEnv, type LedgerBenchSettings } from './settings.js';
import { keelSide, rawSide, type Side } from './sides.js';

/** Keel must keep this share of raw grouped-commit throughput with many writers... */
export const CONCURRENT_THROUGHPUT_TARGET = 0.5;
/** ...with a p99 append latency at most this multiple of raw's... */
export const CONCURRENT_P99_TARGET = 2;
/** ...and one run's sequential append p50 at most this multiple of a raw sequential put's. */
export const SEQUENTIAL_P50_TARGET = 2;
/** Synced commits keep the kernel's journal threads busy, which counts as other load: allow for them. */
const CONTENDED_CORES = contendedCores(0.5);

export interface ConcurrentFigures {
  appendsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SequentialFigures {
  p50Ms: number;
  p99Ms: number;
}

export interface SideFigures {
  concurrent: ConcurrentFigures;
  sequential: SequentialFigures;
  /** Cores other processes used while this side was measured (see kit.ts `watchOtherLoad`). */
  otherCores: number;
}

export interface LedgerBenchSummary {
  keel: SideFigures;
  raw: SideFigures;
  /** Rounds the medians are over, per side (contended rounds are left out when a clean one exists). */
  roundsUsed: { keel: number; raw: number };
  rounds: number;
  throughputRatio: number;
  p99Ratio: number;
  sequentialP50Ratio: number;
  verdicts: Verdict[];
}

/** `writers` runs append `perWriter` records each, all at once; every append is awaited before the run's next. */
async function concurrent(side: Side, writers: number, perWriter: number): Promise<ConcurrentFigures> {
  const runs = await Promise.all(Array.from({ length: writers }, () => side.newRun()));
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(runs.map(async (runId) => {
    const records = new RunRecords(runId);
    for (let n = 0; n < perWriter; n++) {
      const record = records.next(n);
      const start = performance.now();
      await side.append(record);
      latencies.push(performance.now() - start);
    }
  }));
  const elapsedS = (performance.now() - t0) / 1000;
  return { appendsPerSec: latencies.length / elapsedS, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) };
}

/** One run appends `count` records, one at a time. */
async function sequential(side: Side, count: number): Promise<SequentialFigures> {
  const runId = await side.newRun();
  const records = new RunRecords(runId);
  const latencies: number[] = [];
  for (let n = 0; n < count; n++) {
    const record = records.next(n);
    const start = performance.now();
    await side.append(record);
    latencies.push(performance.now() - start);
  }
  return { p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) };
}

export async function benchLedger(settings: LedgerBenchSettings = ledgerSettingsFromEnv()): Promise<LedgerBenchSummary> {
  console.log(`ledger: durable appends, (a) ${settings.writers} concurrent runs x ${settings.appendsPerWriter} appends, `
    + `(b) one run x ${settings.sequentialAppends} sequential appends; 1 warm-up + ${settings.rounds} round(s), median reported`);
  console.log(`  ${machineLine()}`);
  const keel = await keelSide();
  const raw = await rawSide();
  const results = new Map<Side, SideFigures[]>([[keel, []], [raw, []]]);
  try {
    for (let round = 0; round <= settings.rounds; round++) {
      const order = round % 2 ? [raw, keel] : [keel, raw];
      for (const side of order) {
        const load = watchOtherLoad();
        const cpu = process.cpuUsage();
        const c = await concurrent(side, settings.writers, settings.appendsPerWriter);
        const s = await sequential(side, settings.sequentialAppends);
        const used = process.cpuUsage(cpu);
        const otherCores = load.stop((used.user + used.system) / 1000);
        const label = round === 0 ? 'warm-up' : `round ${round}`;
        console.log(`  ${label.padEnd(8)} ${side.label.padEnd(17)} (a) ${fmt(c.appendsPerSec, 0).padStart(7)} appends/s  p50 ${fmt(c.p50Ms)} ms  p99 ${fmt(c.p99Ms)} ms`
          + `   (b) p50 ${fmt(s.p50Ms)} ms  p99 ${fmt(s.p99Ms)} ms   other load ${fmt(otherCores)} cores${otherCores > CONTENDED_CORES ? ' (contended)' : ''}`);
        if (round > 0) results.get(side)!.push({ concurrent: c, sequential: s, otherCores });
      }
    }
  } finally {
    await keel.close();
    await raw.close();
  }
  const summary = summarize(results.get(keel)!, results.get(raw)!);
  console.log(`\n${summaryText(summary, settings)}`);
  return summary;
}

function medianFigures(all: SideFigures[]): { figures: SideFigures; used: number } {
  const { kept: list, allContended } = uncontended(all, CONTENDED_CORES);
  if (allContended) console.log(`  every round of a side was contended (other load > ${CONTENDED_CORES} cores): the figures are not trustworthy`);
  const mid = (pick: (f: SideFigures) => number) => median(list.map(pick));
  return {
    figures: {
      concurrent: { appendsPerSec: mid((f) => f.concurrent.appendsPerSec), p50Ms: mid((f) => f.concurrent.p50Ms), p99Ms: mid((f) => f.concurrent.p99Ms) },
      sequential: { p50Ms: mid((f) => f.sequential.p50Ms), p99Ms: mid((f) => f.sequential.p99Ms) },
      otherCores: mid((f) => f.otherCores),
    },
    used: list.length,
  };
}

export function summarize(keelRounds: SideFigures[], rawRounds: SideFigures[]): LedgerBenchSummary {
  const { figures: keel, used: keelUsed } = medianFigures(keelRounds);
  const { figures: raw, used: rawUsed } = medianFigures(rawRounds);
  const throughputRatio = keel.concurrent.appendsPerSec / raw.concurrent.appendsPerSec;
  const p99Ratio = keel.concurrent.p99Ms / raw.concurrent.p99Ms;
  const sequentialP50Ratio = keel.sequential.p50Ms / raw.sequential.p50Ms;
  return {
    keel,
    raw,
    roundsUsed: { keel: keelUsed, raw: rawUsed },
    rounds: keelRounds.length,
    throughputRatio,
    p99Ratio,
    sequentialP50Ratio,
    verdicts: [
      { label: '(a) keel/raw throughput', pass: throughputRatio >= CONCURRENT_THROUGHPUT_TARGET, detail: `${throughputRatio.toFixed(3)}x >= ${CONCURRENT_THROUGHPUT_TARGET.toFixed(2)}x` },
      { label: '(a) keel/raw p99 append latency', pass: p99Ratio <= CONCURRENT_P99_TARGET, detail: `${p99Ratio.toFixed(3)}x <= ${CONCURRENT_P99_TARGET.toFixed(2)}x` },
      { label: '(b) keel/raw sequential p50 latency', pass: sequentialP50Ratio <= SEQUENTIAL_P50_TARGET, detail: `${sequentialP50Ratio.toFixed(3)}x <= ${SEQUENTIAL_P50_TARGET.toFixed(2)}x` },
    ],
  };
}

function summaryText(s: LedgerBenchSummary, settings: LedgerBenchSettings): string {
  const row = (label: string, f: SideFigures) => `${label.padEnd(18)}${fmt(f.concurrent.appendsPerSec, 0).padStart(10)}${fmt(f.concurrent.p50Ms).padStart(9)}${fmt(f.concurrent.p99Ms).padStart(9)}`
    + `${fmt(f.sequential.p50Ms).padStart(11)}${fmt(f.sequential.p99Ms).padStart(9)}`;
  return [
    `${''.padEnd(18)}${`(a) ${settings.writers} runs at once`.padStart(28)}${'(b) one run'.padStart(20)}`,
    `${'side'.padEnd(18)}${'appends/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'p50 ms'.padStart(11)}${'p99 ms'.padStart(9)}`,
    row('keel LedgerStore', s.keel),
    row('raw lmdb-js put', s.raw),
    '',
    ...(s.roundsUsed.keel < s.rounds || s.roundsUsed.raw < s.rounds
      ? [`medians over ${s.roundsUsed.keel} (keel) and ${s.roundsUsed.raw} (raw) of ${s.rounds} rounds: rounds with other load > ${CONTENDED_CORES} cores left out`] : []),
    `keel/raw: (a) throughput ${s.throughputRatio.toFixed(2)}x, p99 ${s.p99Ratio.toFixed(2)}x; (b) p50 ${s.sequentialP50Ratio.toFixed(2)}x`,
    ...s.verdicts.map(verdictLine),
  ].join('\n');
}
