/**
 * The SSE fan-out benchmark: one run's stream, many subscribers, records at a steady rate; keel's
 * ledger stream against a bare `node:http` server broadcasting the same bytes. Three processes
 * per measurement: the server (alone on its event loop), the subscribers (one child holding every
 * connection), and this parent, which only orchestrates.
 *
 * Per round and server: fresh server and subscriber processes; a warm-up run (its own run id,
 * the same subscriber count) is discarded, then the measured run. Latency is taken per
 * (subscriber, event): receive time in the subscriber child minus the event's acknowledgement time
 * in the server child (both `performance.timeOrigin + now()`). Figures are medians over rounds
 * (rounds during which other processes used the cores are flagged, and left out when a clean one
 * exists); lost and reordered events count in every round.
 */
import { randomBytes } from 'node:crypto';
import { keptRounds, measureRounds, roundsNotes, type RoundsUsed } from '../common/rounds.js';
import { cpuProfArgs } from '../common/server-settings.js';
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { contendedCores, fmt, machineLine, openFilesLimit, verdictLine, watchOtherLoad, type Verdict } from '../ledger/kit.js';
import type { DeliveryReport } from './client-protocol.js';
import type { PublishResult } from './publisher.js';
import { STREAM_TOKEN_ENV, streamSettingsFromEnv, type CreatedRun, type StreamBenchSettings, type StreamServerId } from './settings.js';
import { SubscriberPool } from './subscriber-pool.js';

/** Keel's p99 delivery latency must stay within this multiple of the raw server's... */
export const P99_VS_RAW_TARGET = 1.5;
/** ...and under this many milliseconds; with no event lost or reordered. */
export const P99_ABSOLUTE_TARGET_MS = 50;
const CONTENDED_CORES = contendedCores();

const SERVERS: Record<StreamServerId, { label: string; script: URL; runsPath: string }> = {
  raw: { label: 'node:http broadcast', script: new URL('./servers/raw-stream-server.js', import.meta.url), runsPath: '/runs' },
  keel: { label: 'keel ledger stream', script: new URL('./servers/keel-stream-server.js', import.meta.url), runsPath: '/bench/runs' },
};

export interface StreamMeasurement {
  report: DeliveryReport;
  /** Server CPU (user + system, all threads) per published event, over the measured run. */
  serverCpuMsPerEvent: number;
  connectMs: number;
  connectFailures: number;
  /**
   * CPU the rest of the machine used during the measured run, in cores: machine busy time minus the
   * server's and the subscribers' (the parent idles). Well above 0 means other work competed.
   */
  otherCores: number;
}

export interface StreamServerFigures extends RoundsUsed {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  sendP50Ms: number;
  sendP99Ms: number;
  spreadP99Ms: number;
  serverCpuMsPerEvent: number;
  lost: number;
  reordered: number;
  incomplete: number;
  connectFailures: number;
}

export interface StreamBenchSummary {
  perServer: Partial<Record<StreamServerId, StreamServerFigures>>;
  p99Ratio: number | null;
  verdicts: Verdict[];
}

export async function benchStream(settings: StreamBenchSettings = streamSettingsFromEnv()): Promise<StreamBenchSummary> {
  console.log(`stream: ${settings.subscribers} subscribers of one run, ${settings.ratePerSec} events/s, ${settings.events} events measured `
    + `(${fmt(settings.events / settings.ratePerSec, 1)} s) after ${settings.warmupEvents} warm-up events; ${settings.rounds} round(s), median reported`);
  console.log(`  ${machineLine()}`);
  // Each side holds one socket per subscriber: the server child and the subscriber child inherit this limit.
  const limit = openFilesLimit();
  console.log(`  open files limit (soft, ulimit -n): ${limit ?? 'unknown'}`);
  if (limit !== null && limit < settings.subscribers + 200) {
    console.log(`  WARNING: ${settings.subscribers} subscribers need about ${settings.subscribers + 200} descriptors per process: raise it (ulimit -n) before running, or connections will fail`);
  }
  const execArgv = cpuProfArgs(settings.cpuProfDir);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  const runs = await measureRounds(settings.rounds, settings.servers, (id) => measureServer(id, settings, token, execArgv), (round, id, m) => measurementLine(round, SERVERS[id].label, m));
  const summary = summarize(runs);
  console.log(`\n${summaryText(summary)}`);
  return summary;
}

async function measureServer(id: StreamServerId, settings: StreamBenchSettings, token: string, execArgv: string[]): Promise<StreamMeasurement> {
  const spec = SERVERS[id];
  process.env[STREAM_TOKEN_ENV] = token;
  let server: ServerProcess;
  try {
    server = await startServer(spec.script, execArgv);
  } finally {
    delete process.env[STREAM_TOKEN_ENV];
  }
  const pool = new SubscriberPool();
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const headers: Record<string, string> = id === 'keel' ? { authorization: `Bearer ${token}` } : {};
    const once = async (events: number) => {
      const run = await post<CreatedRun>(`${base}${spec.runsPath}`, headers, {});
      const connected = await pool.connect({ url: `${base}${run.stream_path}`, headers, count: settings.subscribers, batch: settings.connectBatch, expected: events }, 120_000);
      if (connected.failed) console.log(`    ${connected.failed} of ${settings.subscribers} subscribers failed to connect: ${connected.firstError}`);
      const cpuBefore = await server.cpuMicros();
      const load = watchOtherLoad();
      const times = await post<PublishResult>(`${base}${spec.runsPath}/${run.run_id}/publish`, headers, { count: events, ratePerSec: settings.ratePerSec });
      const cpuAfter = await server.cpuMicros();
      const report = await pool.collect({ times, timeoutMs: 30_000 });
      const serverCpuMsPerEvent = (cpuAfter - cpuBefore) / 1000 / events;
      // The subscribers' CPU spans a little more than the publishing (until every stream ended): close enough.
      const otherCores = load.stop((serverCpuMsPerEvent + report.clientCpuMsPerEvent) * events);
      return { report, serverCpuMsPerEvent, connectMs: connected.ms, connectFailures: connected.failed, otherCores };
    };
    await once(settings.warmupEvents);
    return await once(settings.events);
  } finally {
    await pool.stop();
    await server.stop();
  }
}

async function post<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

function measurementLine(round: number, label: string, m: StreamMeasurement): string {
  const r = m.report;
  const problems = r.lost || r.reordered || r.complete !== r.subscribers || m.connectFailures
    ? `  PROBLEM: lost ${r.lost}, reordered ${r.reordered}, complete ${r.complete}/${r.subscribers}, connect failures ${m.connectFailures}${r.firstProblem ? ` (${r.firstProblem})` : ''}`
    : '';
  return `  round ${round}  ${label.padEnd(20)} ack->recv p50 ${fmt(r.ackToReceive.p50)} ms  p99 ${fmt(r.ackToReceive.p99)} ms  max ${fmt(r.ackToReceive.max)} ms`
    + `   sent->recv p50 ${fmt(r.sendToReceive.p50)} p99 ${fmt(r.sendToReceive.p99)}   cpu ms/event server ${fmt(m.serverCpuMsPerEvent)} subscribers ${fmt(r.clientCpuMsPerEvent)}`
    + `   ${r.complete}/${r.subscribers} complete, ${fmt(r.bytesPerEvent, 0)} B/event, connect ${fmt(m.connectMs / 1000, 1)} s, `
    + `other load ${fmt(m.otherCores)} cores${m.otherCores > CONTENDED_CORES ? ' (contended)' : ''}${problems}`;
}

export function summarize(runs: Partial<Record<StreamServerId, StreamMeasurement[]>>): StreamBenchSummary {
  const perServer: Partial<Record<StreamServerId, StreamServerFigures>> = {};
  for (const [id, list] of Object.entries(runs) as Array<[StreamServerId, StreamMeasurement[]]>) {
    const { mid, rounds } = keptRounds(list, CONTENDED_CORES);
    // Delivery problems count in every round, contended or not.
    const sum = (pick: (m: StreamMeasurement) => number) => list.reduce((s, m) => s + pick(m), 0);
    perServer[id] = {
      p50Ms: mid((m) => m.report.ackToReceive.p50),
      p99Ms: mid((m) => m.report.ackToReceive.p99),
      maxMs: mid((m) => m.report.ackToReceive.max),
      sendP50Ms: mid((m) => m.report.sendToReceive.p50),
      sendP99Ms: mid((m) => m.report.sendToReceive.p99),
      spreadP99Ms: mid((m) => m.report.spread.p99),
      serverCpuMsPerEvent: mid((m) => m.serverCpuMsPerEvent),
      lost: sum((m) => m.report.lost),
      reordered: sum((m) => m.report.reordered),
      incomplete: sum((m) => m.report.subscribers - m.report.complete),
      connectFailures: sum((m) => m.connectFailures),
      ...rounds,
    };
  }
  const keel = perServer.keel;
  const raw = perServer.raw;
  const p99Ratio = keel && raw ? keel.p99Ms / raw.p99Ms : null;
  const verdicts: Verdict[] = [];
  if (keel) {
    if (p99Ratio !== null) verdicts.push({ label: 'keel/raw p99 delivery latency', pass: p99Ratio <= P99_VS_RAW_TARGET, detail: `${p99Ratio.toFixed(3)}x <= ${P99_VS_RAW_TARGET.toFixed(2)}x` });
    verdicts.push({ label: 'keel p99 delivery latency', pass: keel.p99Ms < P99_ABSOLUTE_TARGET_MS, detail: `${fmt(keel.p99Ms)} ms < ${P99_ABSOLUTE_TARGET_MS} ms` });
    const bad = keel.lost + keel.reordered + keel.incomplete + keel.connectFailures;
    verdicts.push({ label: 'keel delivery', pass: bad === 0, detail: `lost ${keel.lost}, reordered ${keel.reordered}, incomplete streams ${keel.incomplete}, failed connects ${keel.connectFailures} (all must be 0)` });
  }
  return { perServer, p99Ratio, verdicts };
}

function summaryText(s: StreamBenchSummary): string {
  const head = ['p50 ms', 'p99 ms', 'max ms', 'sent p50', 'sent p99', 'spread p99', 'cpu ms/ev', 'lost', 'reord', 'incompl'];
  const widths = [8, 8, 8, 9, 9, 11, 10, 6, 6, 8];
  const row = (label: string, cells: string[]) => label.padEnd(22) + cells.map((c, i) => c.padStart(widths[i]!)).join('');
  const lines = [row('server (ack -> recv)', head)];
  for (const id of ['raw', 'keel'] as const) {
    const f = s.perServer[id];
    if (!f) continue;
    lines.push(row(SERVERS[id].label, [fmt(f.p50Ms), fmt(f.p99Ms), fmt(f.maxMs), fmt(f.sendP50Ms), fmt(f.sendP99Ms), fmt(f.spreadP99Ms), fmt(f.serverCpuMsPerEvent), String(f.lost), String(f.reordered), String(f.incomplete)]));
  }
  for (const id of ['raw', 'keel'] as const) {
    const f = s.perServer[id];
    if (f) lines.push(...roundsNotes(SERVERS[id].label, f, CONTENDED_CORES));
  }
  lines.push('', `keel/raw p99 ${s.p99Ratio === null ? 'n/a' : `${s.p99Ratio.toFixed(2)}x`}`, ...s.verdicts.map(verdictLine));
  return lines.join('\n');
}
