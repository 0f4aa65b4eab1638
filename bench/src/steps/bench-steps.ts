/**
 * The steps benchmark: how long a 10-step flow (the no-op flow by default, or the mixed flow of
 * issue 13) takes from `POST /api/gateway/runs/start` to completed, one run at a time, against the
 * kernel in a child process (runner in process). The first run of each fresh server is reported on
 * its own (it loads what the flow's nodes load on first use, e.g. Python for `code`).
 *
 * Two ways to see "completed", alternating run by run, both timed from just before the start
 * request is written:
 * - poll: `GET /runs/{id}` back to back on a keep-alive connection until `status` is `completed`:
 *   the status as the API reports it (it flips once the run's final ledger records are durable).
 *   Resolution is one poll round trip; the polls compete with the run for the server's loop.
 * - stream: `GET /runs/{id}/ledger/stream` opened right after the start answer, read until `done`,
 *   which keel sends once the run state is saved and the ledger marks the run terminal (after the
 *   status flip). If the run ends before the stream is open, `done` comes at once on connect.
 * Figures are medians over rounds (fresh server each) of each round's percentiles.
 */
import { randomBytes } from 'node:crypto';
import { cpuProfArgs } from '../common/server-settings.js';
import { startRunsServer } from './runs-server.js';
import { contendedCores, fmt, machineLine, median, quantile, uncontended, verdictLine, watchOtherLoad, type Verdict } from '../ledger/kit.js';
import { KernelHttp } from './client.js';
import { NOOP_FLOW } from './noop-flow.js';
import { stepsSettingsFromEnv, type StepsBenchSettings } from './settings.js';
import { uploadFlow, type StepsFlow } from './steps-flow.js';

/** Synced commits keep the kernel's journal threads busy, which counts as other load: allow for them. */
const CONTENDED_CORES = contendedCores(0.5);

const METHODS = ['poll', 'stream'] as const;
type Method = (typeof METHODS)[number];

interface RunSample {
  totalMs: number;
  /** Until the start request's answer (the run is created durably and registered in the ledger). */
  startAnswerMs: number;
  polls: number;
}

export interface MethodFigures {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  startAnswerP50Ms: number;
  pollsPerRun: number;
}

export interface StepsBenchSummary {
  perMethod: Record<Method, MethodFigures>;
  /** The first run on a fresh server (start → completed, polled): cold caches and first loads. */
  firstRunMs: number;
  serverCpuMsPerRun: number;
  /** Rounds the medians are over (contended rounds are left out when a clean one exists). */
  roundsUsed: number;
  rounds: number;
  verdicts: Verdict[];
}

interface RunView {
  run_id: string;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
}

export async function benchSteps(settings: StepsBenchSettings = stepsSettingsFromEnv(), flow: StepsFlow = NOOP_FLOW): Promise<StepsBenchSummary> {
  console.log(`steps: ${flow.description}, one run at a time, ${settings.runs} runs per method `
    + `(poll / stream alternating) after ${settings.warmupRuns} warm-up runs; ${settings.rounds} round(s), median reported`);
  console.log(`  ${machineLine()}`);
  const execArgv = cpuProfArgs(settings.cpuProfDir);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  const rounds: Array<{ figures: Record<Method, MethodFigures>; firstRunMs: number; cpuMsPerRun: number; otherCores: number }> = [];
  for (let round = 0; round < settings.rounds; round++) {
    const server = await startRunsServer(token, flow.plugins, execArgv);
    const client = new KernelHttp(server.port, token);
    try {
      await uploadFlow(server.port, token, flow);
      const first = await runOnce(client, 'poll', flow);
      await checkRun(client, first.runId, flow);
      for (let i = 1; i < settings.warmupRuns; i++) await runOnce(client, METHODS[i % 2]!, flow);
      const samples: Record<Method, RunSample[]> = { poll: [], stream: [] };
      const cpuBefore = await server.cpuMicros();
      const load = watchOtherLoad();
      const ownBefore = process.cpuUsage();
      for (let i = 0; i < settings.runs * 2; i++) {
        const method = METHODS[i % 2]!;
        samples[method].push((await runOnce(client, method, flow)).sample);
      }
      const own = process.cpuUsage(ownBefore);
      const serverMs = (await server.cpuMicros() - cpuBefore) / 1000;
      const otherCores = load.stop(serverMs + (own.user + own.system) / 1000);
      const cpuMsPerRun = serverMs / (settings.runs * 2);
      const figures = { poll: figuresOf(samples.poll), stream: figuresOf(samples.stream) };
      rounds.push({ figures, firstRunMs: first.sample.totalMs, cpuMsPerRun, otherCores });
      console.log(`  round ${round + 1}  first run on the fresh server ${fmt(first.sample.totalMs)} ms`);
      for (const method of METHODS) console.log(roundLine(round + 1, method, figures[method], cpuMsPerRun));
      console.log(`  round ${round + 1}  other load ${fmt(otherCores)} cores${otherCores > CONTENDED_CORES ? ' (contended)' : ''}`);
    } finally {
      client.close();
      await server.stop();
    }
  }
  const { kept, allContended } = uncontended(rounds, CONTENDED_CORES);
  if (allContended) console.log(`  every round was contended (other load > ${CONTENDED_CORES} cores): the figures are not trustworthy`);
  const perMethod = Object.fromEntries(METHODS.map((m) => {
    const mid = (pick: (f: MethodFigures) => number) => median(kept.map((r) => pick(r.figures[m])));
    return [m, { p50Ms: mid((f) => f.p50Ms), p90Ms: mid((f) => f.p90Ms), p99Ms: mid((f) => f.p99Ms), startAnswerP50Ms: mid((f) => f.startAnswerP50Ms), pollsPerRun: mid((f) => f.pollsPerRun) }];
  })) as Record<Method, MethodFigures>;
  const summary: StepsBenchSummary = {
    perMethod,
    firstRunMs: median(kept.map((r) => r.firstRunMs)),
    serverCpuMsPerRun: median(kept.map((r) => r.cpuMsPerRun)),
    roundsUsed: kept.length,
    rounds: rounds.length,
    verdicts: flow.p50TargetMs === undefined ? [] : [
      { label: 'start -> status completed (poll) p50', pass: perMethod.poll.p50Ms <= flow.p50TargetMs, detail: `${fmt(perMethod.poll.p50Ms)} ms <= ${flow.p50TargetMs} ms` },
      { label: 'start -> stream done p50', pass: perMethod.stream.p50Ms <= flow.p50TargetMs, detail: `${fmt(perMethod.stream.p50Ms)} ms <= ${flow.p50TargetMs} ms` },
    ],
  };
  console.log(`\n${summaryText(summary)}`);
  return summary;
}

async function runOnce(client: KernelHttp, method: Method, flow: StepsFlow): Promise<{ runId: string; sample: RunSample }> {
  const t0 = performance.now();
  const { run_id: runId } = await client.json<{ run_id: string }>('POST', '/api/gateway/runs/start', { bundle_id: flow.bundleId, flow_id: flow.flowId, input_data: {} });
  const startAnswerMs = performance.now() - t0;
  let polls = 0;
  if (method === 'poll') {
    for (;;) {
      const run = await client.json<RunView>('GET', `/api/gateway/runs/${runId}`);
      polls++;
      if (run.status === 'completed') break;
      if (run.status !== 'running') throw new Error(`run ${runId} ended ${run.status}: ${run.error}`);
    }
  } else {
    await client.untilDone(`/api/gateway/runs/${runId}/ledger/stream`);
  }
  const totalMs = performance.now() - t0;
  if (method === 'stream') {
    const run = await client.json<RunView>('GET', `/api/gateway/runs/${runId}`);
    if (run.status !== 'completed') throw new Error(`run ${runId} is ${run.status} after done: ${run.error}`);
  }
  return { runId, sample: { totalMs, startAnswerMs, polls } };
}

/** The first run of a round proves the flow does what it should: completed, its output right, its ledger written. */
async function checkRun(client: KernelHttp, runId: string, flow: StepsFlow): Promise<void> {
  const run = await client.json<RunView>('GET', `/api/gateway/runs/${runId}`);
  const wrong = run.status === 'completed' ? flow.checkOutput(run.output) : `the run ended ${run.status}: ${run.error}`;
  if (wrong) throw new Error(`the ${flow.flowId} flow did not do what it should: ${wrong}`);
  const events = await client.untilDone(`/api/gateway/runs/${runId}/ledger/stream`);
  if (events.filter((e) => e === 'step').length < 2) throw new Error(`the ${flow.flowId} run's ledger is missing records: ${events.join(',')}`);
}

function figuresOf(samples: RunSample[]): MethodFigures {
  const total = samples.map((s) => s.totalMs);
  return {
    p50Ms: quantile(total, 0.5),
    p90Ms: quantile(total, 0.9),
    p99Ms: quantile(total, 0.99),
    startAnswerP50Ms: quantile(samples.map((s) => s.startAnswerMs), 0.5),
    pollsPerRun: samples.reduce((sum, s) => sum + s.polls, 0) / samples.length,
  };
}

function roundLine(round: number, method: Method, f: MethodFigures, cpuMsPerRun: number): string {
  return `  round ${round}  ${method.padEnd(6)} p50 ${fmt(f.p50Ms)} ms  p90 ${fmt(f.p90Ms)} ms  p99 ${fmt(f.p99Ms)} ms  `
    + `(start answer p50 ${fmt(f.startAnswerP50Ms)} ms${method === 'poll' ? `, ${fmt(f.pollsPerRun, 1)} polls/run` : ''})  server cpu ${fmt(cpuMsPerRun)} ms/run`;
}

function summaryText(s: StepsBenchSummary): string {
  const lines = [`${'method'.padEnd(8)}${'p50 ms'.padStart(9)}${'p90 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'start answer p50'.padStart(18)}`];
  for (const m of METHODS) {
    const f = s.perMethod[m];
    lines.push(`${m.padEnd(8)}${fmt(f.p50Ms).padStart(9)}${fmt(f.p90Ms).padStart(9)}${fmt(f.p99Ms).padStart(9)}${fmt(f.startAnswerP50Ms).padStart(18)}`);
  }
  lines.push(`first run on a fresh server: ${fmt(s.firstRunMs)} ms`);
  lines.push(`server cpu per run (both methods): ${fmt(s.serverCpuMsPerRun)} ms`);
  if (s.roundsUsed < s.rounds) lines.push(`medians over ${s.roundsUsed} of ${s.rounds} rounds: rounds with other load > ${CONTENDED_CORES} cores left out`);
  lines.push('', ...s.verdicts.map(verdictLine));
  return lines.join('\n');
}
