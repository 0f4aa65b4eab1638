/**
 * The run listing benchmark (issue 14 security review): what `GET /api/gateway/runs` costs with a
 * filter that matches little, in an account holding many large runs. The kernel runs in a child
 * process (the steps benchmark's server: the runs stack, runner in process). One session with one
 * turn is archived first; then `runs` turns whose variables hold `runBytes` each fill the account
 * through the API. Each listing request is timed until its answer, one after another.
 */
import { randomBytes } from 'node:crypto';
import { startRunsServer } from '../steps/runs-server.js';
import { envInt, fmt, machineLine, quantile, watchOtherLoad } from '../ledger/kit.js';
import { KernelHttp } from '../steps/client.js';
import { uploadFlow } from '../steps/steps-flow.js';
import { ECHO_FLOW } from '../history/echo-flow.js';

/** The listings timed: the finding's (archived only, docs, an unknown session, turns) and a plain page. */
const QUERIES = ['archived_only=true&root_only=true', 'kind=docs', 'session_id=no-such-session', 'root_only=true&limit=20', 'limit=20'];

export interface ListingBenchSummary {
  runs: number;
  runBytes: number;
  p50Ms: Record<string, number>;
  p90Ms: Record<string, number>;
  otherCores: number;
}

export async function benchListing(): Promise<ListingBenchSummary> {
  const runs = envInt('BENCH_LISTING_RUNS', 1000);
  const runBytes = envInt('BENCH_LISTING_RUN_BYTES', 100_000);
  const samples = envInt('BENCH_LISTING_SAMPLES', 30);
  console.log(`listing: ${runs} runs of ${runBytes} bytes of variables in one account, one archived turn the oldest; ${samples} requests per listing`);
  console.log(`  ${machineLine()}`);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  const server = await startRunsServer(token, ECHO_FLOW.plugins);
  const client = new KernelHttp(server.port, token);
  try {
    await uploadFlow(server.port, token, ECHO_FLOW);
    await turn(client, 'bench-listing-archived', 1000);
    await client.json('POST', '/api/gateway/sessions/bench-listing-archived/archive');
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      for (let n = next++; n < runs; n = next++) await turn(client, `bench-listing-${n % 50}`, runBytes);
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    console.log(`  account filled in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    const p50Ms: Record<string, number> = {};
    const p90Ms: Record<string, number> = {};
    const load = watchOtherLoad();
    const ownBefore = process.cpuUsage();
    const cpuBefore = await server.cpuMicros();
    for (const q of QUERIES) {
      const times: number[] = [];
      for (let i = 0; i < samples + 3; i++) {
        const t = performance.now();
        const answer = await client.json<{ items: unknown[] }>('GET', `/api/gateway/runs?${q}`);
        if (i >= 3) times.push(performance.now() - t);
        if (q.startsWith('archived_only') && answer.items.length !== 1) throw new Error(`archived_only listed ${answer.items.length} runs, not 1`);
      }
      p50Ms[q] = quantile(times, 0.5);
      p90Ms[q] = quantile(times, 0.9);
    }
    const own = process.cpuUsage(ownBefore);
    const otherCores = load.stop((await server.cpuMicros() - cpuBefore) / 1000 + (own.user + own.system) / 1000);
    console.log(`\n${'listing'.padEnd(40)}${'p50 ms'.padStart(10)}${'p90 ms'.padStart(10)}`);
    for (const q of QUERIES) console.log(`${q.padEnd(40)}${fmt(p50Ms[q]!).padStart(10)}${fmt(p90Ms[q]!).padStart(10)}`);
    console.log(`other load while measuring: ${fmt(otherCores)} cores`);
    return { runs, runBytes, p50Ms, p90Ms, otherCores };
  } finally {
    client.close();
    await server.stop();
  }
}

/** One completed turn in `session` whose variables hold about `bytes` (its answer, kept as input and output). */
async function turn(client: KernelHttp, session: string, bytes: number): Promise<void> {
  const { run_id: runId } = await client.json<{ run_id: string }>('POST', '/api/gateway/runs/start', { bundle_id: ECHO_FLOW.bundleId, flow_id: ECHO_FLOW.flowId, session_id: session, input_data: { prompt: 'q', response: 'x'.repeat(bytes) } });
  for (;;) {
    const run = await client.json<{ status: string; error: string | null }>('GET', `/api/gateway/runs/${runId}`);
    if (run.status === 'completed') return;
    if (run.status !== 'running') throw new Error(`run ${runId} ended ${run.status}: ${run.error}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
