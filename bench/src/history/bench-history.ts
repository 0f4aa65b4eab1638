/**
 * The history replay benchmark (issue 14): how much `use_session_history` adds to `POST
 * /api/gateway/runs/start` in a session of 2,000 turns. The kernel runs in a child process (the
 * steps benchmark's server: the runs stack, runner in process). The session is filled through the
 * API: every turn completes with a prompt and an answer; the newest `seededTurns` were started with
 * `use_session_history` as a chat client does (so their variables hold a full window, which the
 * replay of the next ones reads). Then starts with and without `use_session_history` alternate,
 * each timed from just before the request is written until its answer (the run is stored, its
 * history seeded), and each run is awaited to completion before the next start.
 */
import { randomBytes } from 'node:crypto';
import { startRunsServer } from '../steps/runs-server.js';
import { fmt, machineLine, quantile, watchOtherLoad } from '../ledger/kit.js';
import { KernelHttp } from '../steps/client.js';
import { uploadFlow } from '../steps/steps-flow.js';
import { ECHO_FLOW } from './echo-flow.js';
import { historySettingsFromEnv, type HistoryBenchSettings } from './settings.js';

const MODES = ['without', 'with'] as const;
type Mode = (typeof MODES)[number];

interface RunView {
  run_id: string;
  status: string;
  error: string | null;
  output: Record<string, unknown> | null;
  session_history: Record<string, unknown> | null;
}

export interface HistoryBenchSummary {
  turns: number;
  startP50Ms: Record<Mode, number>;
  startP90Ms: Record<Mode, number>;
  /** p50 with / p50 without. */
  ratio: number;
  /** What the last replaying start recorded (`session_history`). */
  window: Record<string, unknown> | null;
  fillSeconds: number;
  /** Cores' worth of CPU other processes used while measuring. */
  otherCores: number;
}

export async function benchHistory(settings: HistoryBenchSettings = historySettingsFromEnv()): Promise<HistoryBenchSummary> {
  console.log(`history: a session of ${settings.turns} turns (prompt ${settings.promptChars} chars, answer ${settings.answerChars} chars; the newest ${settings.seededTurns} `
    + `started with use_session_history), then ${settings.samples} starts per mode (with / without use_session_history, alternating) after ${settings.warmup} warm-up starts per mode`);
  console.log(`  ${machineLine()}`);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  const server = await startRunsServer(token, ECHO_FLOW.plugins);
  const client = new KernelHttp(server.port, token);
  const session = `bench-history-${randomBytes(6).toString('hex')}`;
  try {
    await uploadFlow(server.port, token, ECHO_FLOW);
    const t0 = performance.now();
    await fill(client, session, settings);
    const fillSeconds = (performance.now() - t0) / 1000;
    console.log(`  session filled in ${fmt(fillSeconds, 1)} s`);
    let turn = settings.turns;
    const samples: Record<Mode, number[]> = { without: [], with: [] };
    let window: Record<string, unknown> | null = null;
    for (let i = 0; i < settings.warmup * 2; i++) await startTurn(client, session, turn++, settings, MODES[i % 2] === 'with');
    const load = watchOtherLoad();
    const ownBefore = process.cpuUsage();
    const cpuBefore = await server.cpuMicros();
    for (let i = 0; i < settings.samples * 2; i++) {
      const mode = MODES[i % 2]!;
      const { ms, run } = await startTurn(client, session, turn++, settings, mode === 'with');
      samples[mode].push(ms);
      if (mode === 'with') window = check(run);
    }
    const own = process.cpuUsage(ownBefore);
    const otherCores = load.stop((await server.cpuMicros() - cpuBefore) / 1000 + (own.user + own.system) / 1000);
    const summary: HistoryBenchSummary = {
      turns: settings.turns,
      startP50Ms: { without: quantile(samples.without, 0.5), with: quantile(samples.with, 0.5) },
      startP90Ms: { without: quantile(samples.without, 0.9), with: quantile(samples.with, 0.9) },
      ratio: quantile(samples.with, 0.5) / quantile(samples.without, 0.5),
      window,
      fillSeconds,
      otherCores,
    };
    console.log(`\n${summaryText(summary)}`);
    return summary;
  } finally {
    client.close();
    await server.stop();
  }
}

/** The turns before measuring: the older ones several at a time, the seeded ones one after another as a chat goes. */
async function fill(client: KernelHttp, session: string, s: HistoryBenchSettings): Promise<void> {
  const plain = Math.max(0, s.turns - s.seededTurns);
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < plain; n = next++) await startTurn(client, session, n, s, false);
  };
  await Promise.all(Array.from({ length: s.fillConcurrency }, worker));
  for (let n = plain; n < s.turns; n++) await startTurn(client, session, n, s, true);
}

/** Starts turn `n` (timed until the start's answer), then waits until it completed. */
async function startTurn(client: KernelHttp, session: string, n: number, s: HistoryBenchSettings, replay: boolean): Promise<{ ms: number; run: RunView }> {
  const input = { prompt: text(`question ${n}`, s.promptChars), response: text(`answer ${n}`, s.answerChars), ...(replay ? { use_session_history: true } : {}) };
  const t0 = performance.now();
  const { run_id: runId } = await client.json<{ run_id: string }>('POST', '/api/gateway/runs/start', { bundle_id: ECHO_FLOW.bundleId, flow_id: ECHO_FLOW.flowId, session_id: session, input_data: input });
  const ms = performance.now() - t0;
  for (;;) {
    const run = await client.json<RunView>('GET', `/api/gateway/runs/${runId}`);
    if (run.status === 'completed') return { ms, run };
    if (run.status !== 'running') throw new Error(`turn ${n} (${runId}) ended ${run.status}: ${run.error}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function text(head: string, chars: number): string {
  return `${head} `.padEnd(chars, 'lorem ipsum dolor sit amet ');
}

/** A replaying start must have seeded a full window of the session's turns. */
function check(run: RunView): Record<string, unknown> {
  const history = run.session_history;
  const messages = (run.output?.context as { messages?: unknown[] } | undefined)?.messages;
  if (!history || typeof history.seeded !== 'number' || history.seeded < 2 || !Array.isArray(messages) || messages.length !== history.seeded) {
    throw new Error(`a replaying start did not seed the session's history: ${JSON.stringify(history)}`);
  }
  return history;
}

function summaryText(s: HistoryBenchSummary): string {
  const w = s.window ?? {};
  return [
    `${'mode'.padEnd(28)}${'start p50 ms'.padStart(14)}${'start p90 ms'.padStart(14)}`,
    ...MODES.map((m) => `${`${m} use_session_history`.padEnd(28)}${fmt(s.startP50Ms[m]).padStart(14)}${fmt(s.startP90Ms[m]).padStart(14)}`),
    `p50 with / without: ${fmt(s.ratio)}x`,
    `window of the last replaying start: ${w.replayed_messages} messages (${w.replayed_tokens} tokens) replayed, ${w.dropped_messages} dropped (${w.dropped_tokens} tokens, complete: ${w.dropped_counts_complete})`,
    `other load while measuring: ${fmt(s.otherCores)} cores`,
  ].join('\n');
}
