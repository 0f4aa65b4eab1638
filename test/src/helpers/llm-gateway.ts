/**
 * A test kernel for the `llm_call` / `agent` node tests: the real inference plugin configured with
 * one scripted OpenAI-compatible endpoint (`fake/<model>`), ledger, workspaces and gateway-runs;
 * flows are uploaded as bundles and run through the HTTP API.
 */
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './gateway-runs.js';
import { ScriptedLlmEndpoint } from './llm-script-endpoint.js';

const TERMINAL = ['completed', 'failed', 'cancelled'];

export interface LlmGatewayOptions {
  /** Models the endpoint lists (an allowlist, so no catalog call is made). */
  models: string[];
  /** gateway-runs settings. */
  gatewayRuns?: Record<string, unknown>;
  /** Extra inference settings merged over the endpoint. */
  inference?: Record<string, unknown>;
  /** More plugins (the memory plugin) after gateway-runs. */
  plugins?: NonNullable<Parameters<typeof createTestKernel>[0]>['plugins'];
}

export function llmGateway(endpoint: ScriptedLlmEndpoint, options: LlmGatewayOptions) {
  let k: TestKernel;
  const runs = gatewayRuns(() => k);
  let bundles = 0;
  return {
    get k() {
      return k;
    },
    ...runs,
    async boot(): Promise<void> {
      k = await createTestKernel({
        plugins: [
          { plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl: endpoint.url, models: options.models }], ...options.inference } },
          ledgerPlugin,
          workspacesPlugin,
          { plugin: gatewayRunsPlugin, config: options.gatewayRuns ?? {} },
          ...(options.plugins ?? []),
        ],
      });
    },
    stop: () => k?.stop(),
    /** Uploads `flow` as a fresh bundle, starts it with `input_data`, waits for its end; answers the run and its ledger. */
    async runFlow(flow: { id: string; nodes: unknown[]; edges: unknown[] }, inputData: Record<string, unknown> = {}, deadline = 60_000) {
      const bundleId = `llm-${++bundles}`;
      await runs.uploadBundle(bundleId, flow);
      const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: inputData } });
      const runId = started.json<{ run_id: string }>().run_id;
      const run = await until(() => runs.getRun(runId), { what: `run ${runId} of ${bundleId} to end`, ok: (r) => TERMINAL.includes(r.status), deadline });
      return { runId, bundleId, run, ledger: await runs.ledger(runId) };
    },
    /** The child runs of `runId`. */
    async children(runId: string): Promise<RunRecord[]> {
      return (await k.inject({ url: `/api/gateway/runs?parent_run_id=${runId}`, token: k.adminToken })).json<{ items: RunRecord[] }>().items;
    },
  };
}

/** The `started` records of effects of `type`, in ledger order. */
export function startedOf(ledger: LedgerItem[], type: string): LedgerItem[] {
  return ledger.filter((i) => i.status === 'started' && i.effect?.type === type);
}

/**
 * A scripted endpoint and a gateway on it for one mocha suite: `script` sets the endpoint's answers
 * before it starts; both start before the suite's tests and stop after them.
 */
export function llmGatewaySuite(options: LlmGatewayOptions, script: (endpoint: ScriptedLlmEndpoint) => void = () => undefined) {
  const endpoint = new ScriptedLlmEndpoint();
  const gw = llmGateway(endpoint, options);
  before(async () => {
    script(endpoint);
    await endpoint.start();
    await gw.boot();
  });
  after(async () => {
    await gw.stop();
    await endpoint.stop();
  });
  return { endpoint, gw };
}
