/**
 * The relay benchmark (issue 16): what the Keel relay adds over calling an OpenAI-shaped upstream
 * directly, and how its throughput compares with a minimal `http.request` relay, in one run.
 *
 * A raw upstream (child) answers `POST /v1/chat/completions` as JSON or as a short SSE stream. Each
 * round, for each mode (json, stream): a latency phase (one call in flight, the sides interleaved call
 * by call, so each side sees the same moment of the machine; added latency = side minus direct, per
 * round, at p50 and p99), then a throughput phase (`connections` keep-alive clients, each side in
 * turn, the order rotated per round). Every answer is checked; every Keel answer must carry the
 * `x-relay-overhead-ms` header. Figures are medians over the rounds the rest of the machine did not
 * contend (all rounds, flagged, when none was clean).
 */
import os from 'node:os';
import { rotate, roundsNotes, keptRounds } from '../common/rounds.js';
import { contendedCores, fmt, machineLine, quantile, verdictLine, watchOtherLoad } from '../ledger/kit.js';
import { answerText, call, closedLoop, OVERHEAD_HEADER, target, type Target } from './load-client.js';
import { BENCH_MODEL, relaySettingsFromEnv, type RelayBenchSettings, type RelayMode, type RelaySideId } from './settings.js';
import { SIDE_LABELS, startSides, type Sides } from './sides.js';

export const TARGETS = { addedP50Ms: 0.5, addedP99Ms: 3, throughputVsMinimal: 0.6 } as const;

/** One side, one mode, one round. */
export interface SideRound {
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** This side's p50 / p99 minus the direct calls' of the same round. */
  addedP50Ms: number;
  addedP99Ms: number;
  callsPerSec: number;
  loadP50Ms: number;
  loadP99Ms: number;
  /** The side's server CPU per call (the relay's process; for `direct`, the upstream's), µs. */
  cpuMicrosPerCall: number;
  failures: number;
  firstProblem: string | null;
  withoutOverhead: number;
  calls: number;
  /** Cores' worth of CPU other processes used during the round's phases for this mode. */
  otherCores: number;
}

export interface ModeSummary {
  mode: RelayMode;
  perSide: Partial<Record<RelaySideId, { mid: (pick: (r: SideRound) => number) => number; rounds: SideRound[]; notes: string[] }>>;
}

export async function benchRelay(settings: RelayBenchSettings = relaySettingsFromEnv()): Promise<ModeSummary[]> {
  console.log(`relay: POST /v1/chat/completions (${settings.deltas} content deltas), sides ${settings.sides.join(', ')}, modes ${settings.modes.join(', ')}; `
    + `${settings.rounds} round(s) of: latency ${settings.latencyCalls} calls per side one at a time (after ${settings.latencyWarmupCalls} warm-up), `
    + `throughput ${settings.connections} keep-alive clients ${settings.warmupS} s warm-up + ${settings.durationS} s per side`);
  console.log(`  ${machineLine()}`);
  const loadBefore = loadAverage();
  const sides = await startSides(settings);
  try {
    const usable = await checkSides(sides, settings);
    const runs = new Map<RelayMode, Partial<Record<RelaySideId, SideRound[]>>>();
    for (let round = 0; round < settings.rounds; round++) {
      for (const mode of settings.modes) {
        const results = await measureRound(sides, usable, mode, round, settings);
        const byMode = runs.get(mode) ?? {};
        for (const [id, r] of Object.entries(results) as Array<[RelaySideId, SideRound]>) {
          (byMode[id] ??= []).push(r);
          console.log(roundLine(round + 1, mode, id, r));
        }
        runs.set(mode, byMode);
      }
    }
    const limit = contendedCores(0.5);
    const summaries: ModeSummary[] = [];
    for (const mode of settings.modes) {
      const perSide: ModeSummary['perSide'] = {};
      for (const [id, list] of Object.entries(runs.get(mode) ?? {}) as Array<[RelaySideId, SideRound[]]>) {
        const { mid, rounds } = keptRounds(list, limit);
        perSide[id] = { mid, rounds: list, notes: roundsNotes(`${mode} ${SIDE_LABELS[id]}`, rounds, limit) };
      }
      summaries.push({ mode, perSide });
    }
    console.log(`\n${summaryText(summaries, settings, loadBefore, loadAverage())}`);
    return summaries;
  } finally {
    await sides.stop();
  }
}

function bodyFor(mode: RelayMode): Record<string, unknown> {
  return { model: BENCH_MODEL, messages: [{ role: 'user', content: 'Say the bench words.' }], max_tokens: 32, ...(mode === 'stream' ? { stream: true } : {}) };
}

/**
 * Before measuring: one call per side and mode must answer the upstream's words (and, from the Keel
 * relay, the overhead header). A side that fails is left out with the reason printed, so the
 * baselines are still measured while a relay is broken or missing.
 */
async function checkSides(sides: Sides, s: RelayBenchSettings): Promise<RelaySideId[]> {
  const expected = Array.from({ length: s.deltas }, (_, i) => (i ? ` word${i}` : 'word0')).join('');
  const usable: RelaySideId[] = [];
  for (const id of s.sides) {
    const port = sides.servers[id]!.port;
    let problem: string | null = null;
    for (const mode of s.modes) {
      const t = target(port, sides.authorization[id], mode, bodyFor(mode), 1);
      const parts: Buffer[] = [];
      const r = await call(t, parts);
      t.agent.destroy();
      const body = Buffer.concat(parts).toString('utf8');
      if (r.problem) problem = `${mode}: ${r.problem}: ${body.slice(0, 300)}`;
      else {
        let text = '';
        try {
          text = answerText(mode, body);
        } catch (err) {
          problem = `${mode}: the answer does not parse (${String(err)}): ${body.slice(0, 300)}`;
        }
        if (!problem && text !== expected) problem = `${mode}: answered ${JSON.stringify(text)}, not the upstream's ${JSON.stringify(expected)}`;
        if (!problem && id === 'keel' && r.overhead === undefined) console.log(`  ${SIDE_LABELS[id]} (${mode}): NO ${OVERHEAD_HEADER} header on the answer`);
      }
      if (problem) break;
    }
    if (problem) console.log(`  ${SIDE_LABELS[id]} left out: ${problem}`);
    else usable.push(id);
  }
  if (!usable.includes('direct')) throw new Error('the raw upstream does not answer: nothing to measure');
  return usable;
}

const latencyTargets = new Map<string, Target>();
const loadTargets = new Map<string, Target>();

function cachedTarget(cache: Map<string, Target>, sides: Sides, id: RelaySideId, mode: RelayMode, sockets: number): Target {
  const key = `${id}/${mode}`;
  let t = cache.get(key);
  if (!t) {
    t = target(sides.servers[id]!.port, sides.authorization[id], mode, bodyFor(mode), sockets);
    cache.set(key, t);
  }
  return t;
}

async function measureRound(sides: Sides, ids: RelaySideId[], mode: RelayMode, round: number, s: RelayBenchSettings): Promise<Partial<Record<RelaySideId, SideRound>>> {
  const processes = [sides.upstream, ...ids.filter((id) => id !== 'direct').map((id) => sides.servers[id]!)];
  const ownCpu = async () => (await Promise.all(processes.map((p) => p.cpuMicros()))).reduce((a, b) => a + b, 0) + cpuOfThisProcess();
  const watch = watchOtherLoad();
  const own0 = await ownCpu();

  // Latency: one call in flight, the sides interleaved call by call (order rotated each call).
  const latency: Partial<Record<RelaySideId, number[]>> = {};
  const lat = Object.fromEntries(ids.map((id) => [id, cachedTarget(latencyTargets, sides, id, mode, 1)])) as Record<RelaySideId, Target>;
  const problems: Partial<Record<RelaySideId, { failures: number; first: string | null; withoutOverhead: number; calls: number }>> = {};
  for (let i = 0; i < s.latencyWarmupCalls + s.latencyCalls; i++) {
    for (const id of rotate(ids, i + round)) {
      const r = await call(lat[id]);
      const p = (problems[id] ??= { failures: 0, first: null, withoutOverhead: 0, calls: 0 });
      p.calls++;
      if (r.overhead === undefined) p.withoutOverhead++;
      if (r.problem) {
        p.failures++;
        p.first ??= r.problem;
      }
      if (i >= s.latencyWarmupCalls) (latency[id] ??= []).push(r.ms);
    }
  }

  // Throughput: each side alone under `connections` keep-alive clients, in an order rotated per round.
  const results: Partial<Record<RelaySideId, SideRound>> = {};
  const directP50 = quantile(latency.direct!, 0.5);
  const directP99 = quantile(latency.direct!, 0.99);
  for (const id of rotate(ids, round)) {
    const t = cachedTarget(loadTargets, sides, id, mode, s.connections);
    await closedLoop(t, s.connections, s.warmupS);
    const server = sides.servers[id]!;
    const cpu0 = await server.cpuMicros();
    const load = await closedLoop(t, s.connections, s.durationS);
    const cpu1 = await server.cpuMicros();
    const p = problems[id]!;
    const l = latency[id]!;
    results[id] = {
      latencyP50Ms: quantile(l, 0.5),
      latencyP99Ms: quantile(l, 0.99),
      addedP50Ms: quantile(l, 0.5) - directP50,
      addedP99Ms: quantile(l, 0.99) - directP99,
      callsPerSec: load.calls / load.seconds,
      loadP50Ms: quantile(load.latencies, 0.5),
      loadP99Ms: quantile(load.latencies, 0.99),
      cpuMicrosPerCall: load.calls ? (cpu1 - cpu0) / load.calls : Number.NaN,
      failures: p.failures + load.failures,
      firstProblem: p.first ?? load.firstProblem,
      withoutOverhead: p.withoutOverhead + load.withoutOverhead,
      calls: p.calls + load.calls,
      otherCores: 0,
    };
  }
  const own1 = await ownCpu();
  const otherCores = watch.stop((own1 - own0) / 1000);
  for (const r of Object.values(results)) r.otherCores = otherCores;
  return results;
}

function cpuOfThisProcess(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

function roundLine(round: number, mode: RelayMode, id: RelaySideId, r: SideRound): string {
  const failed = r.failures ? `  (${r.failures} failed: ${r.firstProblem})` : '';
  return `  round ${round} ${mode.padEnd(6)} ${SIDE_LABELS[id].padEnd(27)} latency p50 ${fmt(r.latencyP50Ms, 3)} p99 ${fmt(r.latencyP99Ms, 3)} ms (added ${fmt(r.addedP50Ms, 3)} / ${fmt(r.addedP99Ms, 3)})  `
    + `${fmt(r.callsPerSec, 0)} calls/s (p50 ${fmt(r.loadP50Ms, 2)} p99 ${fmt(r.loadP99Ms, 2)} ms)  cpu ${fmt(r.cpuMicrosPerCall, 0)} µs/call  other load ${fmt(r.otherCores)} cores${failed}`;
}

export function summaryText(summaries: ModeSummary[], s: RelayBenchSettings, loadBefore: string, loadAfter: string): string {
  const lines = [`load average ${loadBefore} before, ${loadAfter} after (1/5/15 min); ${os.availableParallelism()} cores`];
  const head = `${'mode / side'.padEnd(36)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'+p50'.padStart(8)}${'+p99'.padStart(8)}${'calls/s'.padStart(9)}${'load p99'.padStart(10)}${'cpu µs'.padStart(8)}${'failed'.padStart(8)}${'other'.padStart(7)}`;
  lines.push(head);
  const verdicts: string[] = [];
  const notes: string[] = [];
  for (const m of summaries) {
    for (const id of s.sides) {
      const side = m.perSide[id];
      if (!side) continue;
      const mid = side.mid;
      const failures = side.rounds.reduce((a, r) => a + r.failures, 0);
      const others = side.rounds.map((r) => fmt(r.otherCores, 1)).join('/');
      lines.push(`${`${m.mode} ${SIDE_LABELS[id]}`.padEnd(36)}${fmt(mid((r) => r.latencyP50Ms), 3).padStart(8)}${fmt(mid((r) => r.latencyP99Ms), 3).padStart(8)}`
        + `${(id === 'direct' ? '' : fmt(mid((r) => r.addedP50Ms), 3)).padStart(8)}${(id === 'direct' ? '' : fmt(mid((r) => r.addedP99Ms), 3)).padStart(8)}`
        + `${fmt(mid((r) => r.callsPerSec), 0).padStart(9)}${fmt(mid((r) => r.loadP99Ms), 2).padStart(10)}${fmt(mid((r) => r.cpuMicrosPerCall), 0).padStart(8)}${String(failures).padStart(8)}  ${others}`);
      notes.push(...side.notes);
    }
    const keel = m.perSide.keel;
    const minimal = m.perSide.minimal;
    if (keel) {
      const addedP50 = keel.mid((r) => r.addedP50Ms);
      const addedP99 = keel.mid((r) => r.addedP99Ms);
      verdicts.push(verdictLine({ label: `${m.mode}: keel added latency p50 <= +${TARGETS.addedP50Ms} ms`, pass: addedP50 <= TARGETS.addedP50Ms, detail: `+${fmt(addedP50, 3)} ms` }));
      verdicts.push(verdictLine({ label: `${m.mode}: keel added latency p99 <= +${TARGETS.addedP99Ms} ms`, pass: addedP99 <= TARGETS.addedP99Ms, detail: `+${fmt(addedP99, 3)} ms` }));
      const without = keel.rounds.reduce((a, r) => a + r.withoutOverhead, 0);
      const calls = keel.rounds.reduce((a, r) => a + r.calls, 0);
      verdicts.push(verdictLine({ label: `${m.mode}: ${OVERHEAD_HEADER} on every keel answer`, pass: without === 0 && calls > 0, detail: `${calls - without} of ${calls}` }));
    }
    if (keel && minimal) {
      const ratio = keel.mid((r) => r.callsPerSec) / minimal.mid((r) => r.callsPerSec);
      const cpuRatio = minimal.mid((r) => r.cpuMicrosPerCall) / keel.mid((r) => r.cpuMicrosPerCall);
      verdicts.push(verdictLine({ label: `${m.mode}: keel / minimal relay throughput >= ${TARGETS.throughputVsMinimal}x at ${s.connections} clients`, pass: ratio >= TARGETS.throughputVsMinimal, detail: `${ratio.toFixed(3)}x (server CPU per call ratio ${cpuRatio.toFixed(2)}x)` }));
    }
  }
  lines.push('(latency: one call in flight, ms; +p50/+p99: minus the direct calls of the same round; calls/s, load p99: under the keep-alive clients; cpu: the side\'s server process per call; other: cores other processes used, per round)');
  return [...lines, '', ...notes, ...verdicts].join('\n');
}
