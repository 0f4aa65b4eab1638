/**
 * The hub benchmark: messages posted over HTTP and pushed to a channel's members' live sockets;
 * keel's hub plugin (durable post, per-viewer envelopes) against a bare `node:http` + `ws`
 * broadcast server, in the same run. Three processes per measurement: the server (alone on its
 * event loop), the sockets child (one WebSocket per member), and this parent, which posts.
 *
 * Per round and server: a fresh server, set up over HTTP (sides.ts), and a fresh sockets child;
 * then three phases on the same sockets:
 *   1. warm-up: `warmupMessages` at the rate, discarded;
 *   2. latency: `messages` at `ratePerSec`; delivery latency = receive time in the sockets child
 *      minus send time in the poster (carried in the body; both clocks are `timeOrigin + now()`),
 *      over every (member, message);
 *   3. throughput: `burstMessages` posted with `burstConcurrency` requests in flight; persisted-
 *      and-broadcast messages/s = messages / (first request → the last member's last message).
 * Every member must get every message exactly once with gapless seqs, in every phase measured.
 * Figures are medians over rounds (rounds during which other processes used the cores are flagged,
 * and left out when a clean one exists); delivery problems count in every round.
 */
import { randomBytes } from 'node:crypto';
import { keptRounds, measureRounds, roundsNotes, type RoundsUsed } from '../common/rounds.js';
import { cpuProfArgs } from '../common/server-settings.js';
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { contendedCores, fmt, machineLine, openFilesLimit, quantile, verdictLine, watchOtherLoad, type Verdict } from '../ledger/kit.js';
import { Poster, type PostResult } from './poster.js';
import { HUB_TOKEN_ENV, hubSettingsFromEnv, type HubBenchSettings, type HubServerId } from './settings.js';
import { prepareSide, SERVER_LABELS, SERVER_SCRIPTS } from './sides.js';
import type { PhaseReport } from './socket-protocol.js';
import { SocketPool } from './socket-pool.js';

/** keel's p99 delivery latency at the rate must stay within this multiple of raw's... */
export const P99_VS_RAW_TARGET = 2.5;
/** ...and it must persist and deliver at least this many messages/s to every member. */
export const THROUGHPUT_TARGET = 1000;
/** The sockets child, the poster and lmdb's synced commits (journal threads) make some "other" load unavoidable. */
const CONTENDED_CORES = contendedCores(0.5);

interface PhaseFigures {
  report: PhaseReport;
  post: PostResult;
  /** Server CPU (user + system, all threads) per message, ms. */
  serverCpuMs: number;
  /** Cores' worth of CPU other processes used meanwhile (see kit.ts watchOtherLoad). */
  otherCores: number;
}

export interface HubMeasurement {
  rate: PhaseFigures;
  burst: PhaseFigures;
  /** Persisted-and-broadcast messages/s: burst messages over first request → last delivery. */
  deliveredPerSec: number;
  /** Burst messages over first request → last answer. */
  ackedPerSec: number;
  connectMs: number;
  connectFailures: number;
  setupMs: number;
  otherCores: number;
}

export interface HubServerFigures extends RoundsUsed {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  ackP50Ms: number;
  ackP99Ms: number;
  serverCpuMs: number;
  clientCpuMs: number;
  frameBytes: number;
  deliveredPerSec: number;
  ackedPerSec: number;
  burstP50Ms: number;
  burstP99Ms: number;
  burstServerCpuMs: number;
  burstClientCpuMs: number;
  lost: number;
  duplicates: number;
  reordered: number;
  stray: number;
  incomplete: number;
  postFailures: number;
  connectFailures: number;
}

export interface HubBenchSummary {
  perServer: Partial<Record<HubServerId, HubServerFigures>>;
  p99Ratio: number | null;
  throughputRatio: number | null;
  verdicts: Verdict[];
}

export async function benchHub(settings: HubBenchSettings = hubSettingsFromEnv()): Promise<HubBenchSummary> {
  console.log(`hub: ${settings.members} member sockets of one channel; latency phase ${settings.messages} messages at ${settings.ratePerSec}/s `
    + `(${fmt(settings.messages / settings.ratePerSec, 1)} s) after ${settings.warmupMessages} warm-up messages; throughput phase ${settings.burstMessages} messages, `
    + `${settings.burstConcurrency} posts in flight; ${settings.rounds} round(s), median reported`);
  console.log(`  ${machineLine()}`);
  const limit = openFilesLimit();
  if (limit !== null && limit < settings.members + 200) console.log(`  WARNING: open files limit ${limit} is below ${settings.members + 200}: raise it (ulimit -n) or sockets will fail`);
  const execArgv = cpuProfArgs(settings.cpuProfDir);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  const runs = await measureRounds(settings.rounds, settings.servers, (id) => measureServer(id, settings, token, execArgv), (round, id, m) => measurementLine(round, SERVER_LABELS[id], m));
  const summary = summarize(runs);
  console.log(`\n${summaryText(summary)}`);
  return summary;
}

async function measureServer(id: HubServerId, settings: HubBenchSettings, token: string, execArgv: string[]): Promise<HubMeasurement> {
  process.env[HUB_TOKEN_ENV] = token;
  let server: ServerProcess;
  try {
    server = await startServer(SERVER_SCRIPTS[id], execArgv);
  } finally {
    delete process.env[HUB_TOKEN_ENV];
  }
  const pool = new SocketPool();
  let poster: Poster | null = null;
  try {
    const setupStarted = performance.now();
    const side = await prepareSide(id, server.port, settings.members, token);
    const setupMs = performance.now() - setupStarted;
    const connected = await pool.connect({ urls: side.socketUrls, batch: settings.connectBatch, channel: side.channel, sender: side.sender }, 120_000);
    if (connected.failed) console.log(`    ${connected.failed} of ${settings.members} sockets failed to connect: ${connected.firstError}`);
    poster = new Poster(side.post, Math.max(64, settings.burstConcurrency));
    const phase = async (first: number, count: number, post: (p: Poster) => Promise<PostResult>): Promise<PhaseFigures> => {
      await pool.expect({ first, count });
      const load = watchOtherLoad();
      const parentCpu = process.cpuUsage();
      const cpuBefore = await server.cpuMicros();
      const result = await post(poster!);
      const report = await pool.collect({ timeoutMs: 30_000 });
      const serverCpu = (await server.cpuMicros()) - cpuBefore;
      const own = process.cpuUsage(parentCpu);
      const otherCores = load.stop(serverCpu / 1000 + report.cpuMs + (own.user + own.system) / 1000);
      return { report, post: result, serverCpuMs: serverCpu / 1000 / count, otherCores };
    };
    let next = 0;
    const warm = await phase(next, settings.warmupMessages, (p) => p.atRate(next, settings.warmupMessages, settings.ratePerSec));
    if (warm.report.firstProblem || warm.post.failed) console.log(`    warm-up: ${warm.report.firstProblem ?? warm.post.firstError}`);
    next += settings.warmupMessages;
    const rate = await phase(next, settings.messages, (p) => p.atRate(next, settings.messages, settings.ratePerSec));
    next += settings.messages;
    const burst = await phase(next, settings.burstMessages, (p) => p.burst(next, settings.burstMessages, settings.burstConcurrency));
    const seconds = (end: number) => (end - burst.post.startedAt) / 1000;
    return {
      rate,
      burst,
      deliveredPerSec: settings.burstMessages / seconds(burst.report.completedAt),
      ackedPerSec: settings.burstMessages / seconds(burst.post.endedAt),
      connectMs: connected.ms,
      connectFailures: connected.failed,
      setupMs,
      otherCores: Math.max(rate.otherCores, burst.otherCores),
    };
  } finally {
    poster?.close();
    await pool.stop();
    await server.stop();
  }
}

function problems(f: PhaseFigures): string {
  const r = f.report;
  if (!r.lost && !r.duplicates && !r.reordered && !r.stray && !r.closed && r.complete === r.sockets && !f.post.failed && !r.firstProblem) return '';
  return `  PROBLEM: lost ${r.lost}, duplicates ${r.duplicates}, reordered ${r.reordered}, stray ${r.stray}, closed ${r.closed}, complete ${r.complete}/${r.sockets}, `
    + `failed posts ${f.post.failed}${r.firstProblem ? ` (${r.firstProblem})` : ''}${f.post.firstError ? ` (${f.post.firstError})` : ''}`;
}

function measurementLine(round: number, label: string, m: HubMeasurement): string {
  const r = m.rate.report;
  const b = m.burst.report;
  return `  round ${round}  ${label.padEnd(24)} rate: p50 ${fmt(r.latency.p50)} ms  p99 ${fmt(r.latency.p99)} ms  max ${fmt(r.latency.max)} ms`
    + `  post ack p50 ${fmt(quantile(m.rate.post.ackMs, 0.5))} p99 ${fmt(quantile(m.rate.post.ackMs, 0.99))}  cpu ms/msg server ${fmt(m.rate.serverCpuMs)} sockets ${fmt(r.cpuMs / m.rate.post.ackMs.length)}`
    + `  ${fmt(r.frameBytes, 0)} B/frame\n`
    + `           ${''.padEnd(24)} burst: ${fmt(m.deliveredPerSec, 0)} msg/s delivered to all (${fmt(m.ackedPerSec, 0)} acked), p50 ${fmt(b.latency.p50)} p99 ${fmt(b.latency.p99)} ms, `
    + `cpu ms/msg server ${fmt(m.burst.serverCpuMs)} sockets ${fmt(b.cpuMs / Math.max(1, m.burst.post.ackMs.length))}; setup ${fmt(m.setupMs / 1000, 1)} s, connect ${fmt(m.connectMs / 1000, 1)} s, `
    + `other load ${fmt(m.otherCores)} cores${m.otherCores > CONTENDED_CORES ? ' (contended)' : ''}${problems(m.rate)}${problems(m.burst)}`;
}

export function summarize(runs: Partial<Record<HubServerId, HubMeasurement[]>>): HubBenchSummary {
  const perServer: Partial<Record<HubServerId, HubServerFigures>> = {};
  for (const [id, list] of Object.entries(runs) as Array<[HubServerId, HubMeasurement[]]>) {
    const { mid, rounds } = keptRounds(list, CONTENDED_CORES);
    // Delivery problems count in every round, contended or not, in both measured phases.
    const sum = (pick: (r: PhaseReport, f: PhaseFigures) => number) => list.reduce((s, m) => s + pick(m.rate.report, m.rate) + pick(m.burst.report, m.burst), 0);
    perServer[id] = {
      p50Ms: mid((m) => m.rate.report.latency.p50),
      p99Ms: mid((m) => m.rate.report.latency.p99),
      maxMs: mid((m) => m.rate.report.latency.max),
      ackP50Ms: mid((m) => quantile(m.rate.post.ackMs, 0.5)),
      ackP99Ms: mid((m) => quantile(m.rate.post.ackMs, 0.99)),
      serverCpuMs: mid((m) => m.rate.serverCpuMs),
      clientCpuMs: mid((m) => m.rate.report.cpuMs / Math.max(1, m.rate.post.ackMs.length)),
      frameBytes: mid((m) => m.rate.report.frameBytes),
      deliveredPerSec: mid((m) => m.deliveredPerSec),
      ackedPerSec: mid((m) => m.ackedPerSec),
      burstP50Ms: mid((m) => m.burst.report.latency.p50),
      burstP99Ms: mid((m) => m.burst.report.latency.p99),
      burstServerCpuMs: mid((m) => m.burst.serverCpuMs),
      burstClientCpuMs: mid((m) => m.burst.report.cpuMs / Math.max(1, m.burst.post.ackMs.length)),
      lost: sum((r) => r.lost),
      duplicates: sum((r) => r.duplicates),
      reordered: sum((r) => r.reordered),
      stray: sum((r) => r.stray),
      incomplete: sum((r) => r.sockets - r.complete),
      postFailures: sum((_r, f) => f.post.failed),
      connectFailures: list.reduce((s, m) => s + m.connectFailures, 0),
      ...rounds,
    };
  }
  const keel = perServer.keel;
  const raw = perServer.raw;
  const p99Ratio = keel && raw ? keel.p99Ms / raw.p99Ms : null;
  const throughputRatio = keel && raw ? keel.deliveredPerSec / raw.deliveredPerSec : null;
  const verdicts: Verdict[] = [];
  if (keel) {
    if (p99Ratio !== null) verdicts.push({ label: 'keel/raw p99 delivery latency at the rate', pass: p99Ratio <= P99_VS_RAW_TARGET, detail: `${p99Ratio.toFixed(3)}x <= ${P99_VS_RAW_TARGET.toFixed(2)}x` });
    verdicts.push({ label: 'keel persisted-and-broadcast throughput', pass: keel.deliveredPerSec >= THROUGHPUT_TARGET, detail: `${fmt(keel.deliveredPerSec, 0)} messages/s >= ${THROUGHPUT_TARGET}` });
    const bad = keel.lost + keel.duplicates + keel.reordered + keel.stray + keel.incomplete + keel.postFailures + keel.connectFailures;
    verdicts.push({
      label: 'keel delivery', pass: bad === 0,
      detail: `lost ${keel.lost}, duplicates ${keel.duplicates}, reordered ${keel.reordered}, stray ${keel.stray}, incomplete sockets ${keel.incomplete}, failed posts ${keel.postFailures}, failed connects ${keel.connectFailures} (all must be 0)`,
    });
  }
  return { perServer, p99Ratio, throughputRatio, verdicts };
}

function summaryText(s: HubBenchSummary): string {
  const head = ['p50 ms', 'p99 ms', 'max ms', 'ack p50', 'ack p99', 'cpu ms/msg', 'B/frame', 'msg/s', 'acked/s', 'cpu ms/msg', 'lost', 'dup', 'reord'];
  const widths = [8, 8, 8, 9, 9, 11, 8, 8, 9, 11, 6, 5, 6];
  const row = (label: string, cells: string[]) => label.padEnd(26) + cells.map((c, i) => c.padStart(widths[i]!)).join('');
  const lines = [row('', ['--- at the rate:', '', '', '', '', '', '', '--- throughput:', '', '', '', '', '']), row('server', head)];
  for (const id of ['raw', 'keel'] as const) {
    const f = s.perServer[id];
    if (!f) continue;
    lines.push(row(SERVER_LABELS[id], [fmt(f.p50Ms), fmt(f.p99Ms), fmt(f.maxMs), fmt(f.ackP50Ms), fmt(f.ackP99Ms), fmt(f.serverCpuMs), fmt(f.frameBytes, 0),
      fmt(f.deliveredPerSec, 0), fmt(f.ackedPerSec, 0), fmt(f.burstServerCpuMs), String(f.lost), String(f.duplicates), String(f.reordered)]));
  }
  for (const id of ['raw', 'keel'] as const) {
    const f = s.perServer[id];
    if (!f) continue;
    lines.push(`${SERVER_LABELS[id]}: sockets child cpu ms/msg ${fmt(f.clientCpuMs)} at the rate, ${fmt(f.burstClientCpuMs)} in the burst; burst delivery p50 ${fmt(f.burstP50Ms)} p99 ${fmt(f.burstP99Ms)} ms`);
    lines.push(...roundsNotes(SERVER_LABELS[id], f, CONTENDED_CORES));
  }
  const ratio = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(2)}x`);
  lines.push('', `keel/raw p99 at the rate ${ratio(s.p99Ratio)}, throughput ${ratio(s.throughputRatio)}`, ...s.verdicts.map(verdictLine));
  return lines.join('\n');
}
