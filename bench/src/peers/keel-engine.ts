/**
 * Keel: the kernel in a child process (bench/steps' kernel-server.ts: the runs stack, runner in
 * process, a fresh data directory), the two flows uploaded as bundles. A run is one
 * `POST /api/gateway/runs/start` with `wait: {until: 'completed'}` when the server supports it;
 * otherwise (a 400 naming `wait`, or an answer without `run`) the start and then the run's ledger
 * stream read until `done`, as bench/steps does. The report says which.
 */
import { randomBytes } from 'node:crypto';
import { ANSWER_FLOW } from '../steps/answer-flow.js';
import { KernelHttp } from '../steps/client.js';
import { NOOP_FLOW } from '../steps/noop-flow.js';
import { startRunsServer } from '../steps/runs-server.js';
import { RUNS_PLUGINS, uploadFlow, type StepsFlow } from '../steps/steps-flow.js';
import type { Engine, RunningEngine } from './engine.js';
import type { FlowKind } from './settings.js';

const FLOWS: Record<FlowKind, StepsFlow> = { recorded: ANSWER_FLOW, inMemory: NOOP_FLOW };

interface RunView {
  run_id: string;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
}

interface StartAnswer {
  run_id: string;
  run?: RunView;
}

export const keelEngine: Engine = {
  label: 'Keel',
  missing: () => null,
  async start(clients: number): Promise<RunningEngine> {
    const token = `keel_bench_${randomBytes(18).toString('hex')}`;
    const server = await startRunsServer(token, RUNS_PLUGINS);
    // Two connections per client: the fallback holds a start and a stream open at once.
    const client = new KernelHttp(server.port, token, clients * 2 + 2);
    try {
      for (const flow of Object.values(FLOWS)) await uploadFlow(server.port, token, flow);
    } catch (err) {
      client.close();
      await server.stop();
      throw err;
    }
    let waitSupported: boolean | null = null;

    const startBody = (flow: StepsFlow, wait: boolean) => ({ bundle_id: flow.bundleId, flow_id: flow.flowId, input_data: {}, ...(wait ? { wait: { until: 'completed' } } : {}) });

    const checked = new Set<FlowKind>();

    /** The first run finds out whether the server knows `wait`. */
    async function probe(flow: StepsFlow): Promise<RunView> {
      const { status, text } = await client.send('POST', '/api/gateway/runs/start', startBody(flow, true));
      if (status === 400 && /\bwait\b/.test(text)) {
        waitSupported = false;
        return (await startAndStream(flow, true))!;
      }
      if (status < 200 || status >= 300) throw new Error(`POST /runs/start answered ${status}: ${text}`);
      const answer = JSON.parse(text) as StartAnswer;
      waitSupported = answer.run !== undefined;
      if (answer.run) return answer.run;
      await client.untilDone(`/api/gateway/runs/${answer.run_id}/ledger/stream`);
      return client.json<RunView>('GET', `/api/gateway/runs/${answer.run_id}`);
    }

    async function startWaiting(flow: StepsFlow): Promise<RunView> {
      const { run } = await client.json<StartAnswer>('POST', '/api/gateway/runs/start', startBody(flow, true));
      if (!run) throw new Error('POST /runs/start answered without `run` though it did before');
      return run;
    }

    /** Start, then the ledger stream until `done`; the run as GET /runs/{id} shows it when `read`. */
    async function startAndStream(flow: StepsFlow, read: boolean): Promise<RunView | null> {
      const { run_id: runId } = await client.json<StartAnswer>('POST', '/api/gateway/runs/start', startBody(flow, false));
      await client.untilDone(`/api/gateway/runs/${runId}/ledger/stream`);
      return read ? client.json<RunView>('GET', `/api/gateway/runs/${runId}`) : null;
    }

    return {
      async run(kind) {
        const flow = FLOWS[kind];
        const first = !checked.has(kind);
        const run = waitSupported === null ? await probe(flow) : waitSupported ? await startWaiting(flow) : await startAndStream(flow, first);
        if (!run) return;
        // Every answered run must be completed; the first of each flow must also have the right output.
        const wrong = run.status !== 'completed' ? `the run ended ${run.status}: ${run.error}` : first ? flow.checkOutput(run.output) : null;
        if (wrong) throw new Error(`Keel's ${flow.flowId} flow did not do what it should: ${wrong}`);
        checked.add(kind);
      },
      pids: () => [server.pid],
      describe(kind) {
        const how = waitSupported === false ? 'start, then the ledger stream until `done` (this server has no `wait`)' : 'one POST /runs/start with wait: {until: completed}';
        return `${FLOWS[kind].description}; ${how}`;
      },
      async stop() {
        client.close();
        await server.stop();
      },
    };
  },
};
