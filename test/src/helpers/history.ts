/**
 * Session history replay tests (`use_session_history`) through the HTTP API: a test kernel with the
 * runs stack, an `echo` flow whose run completes with `output.response` / `answer` / `result` taken
 * from its inputs and `output.context` = the context the run was started with (so the test reads what
 * was seeded), an `ask` flow that waits for the user, and a `fail` flow whose run fails.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { askUserFlow, edges, node } from './flow-builder.js';
import { uploadBundleAs } from './accounts.js';
import { until, type RunRecord } from './gateway-runs.js';

export interface ReplayedMessage {
  role: string;
  content: string | unknown[];
  metadata: { kind: string; run_id: string; ts: string; replay_truncated?: boolean; history_window?: Record<string, unknown> };
}

export type HistoryRun = RunRecord & { session_history: Record<string, unknown> | null; output: { response?: unknown; context?: { messages?: ReplayedMessage[] } & Record<string, unknown> } | null };

const ANSWER_PINS = ['response', 'answer', 'result', 'context'];

/** start → end: every answer pin and the context straight from the start's inputs. */
export const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ANSWER_PINS }), node({ id: 'end', type: 'on_flow_end', inputs: ANSWER_PINS })],
  edges: edges('start -> end', ...ANSWER_PINS.map((p) => `start.${p} -> end.${p}`)),
};

/** A flow whose run fails (a node type no plugin provides). */
const failFlow = {
  id: 'fail',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'warp', type: 'quantum_teleport', inputs: [], outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: [] })],
  edges: edges('start -> warp', 'warp -> end'),
};

/** A test kernel with the three bundles uploaded by the admin; `config` is the gateway-runs plugin's. */
export class HistoryGateway {
  private kernel: TestKernel | undefined;

  constructor(private readonly config: Record<string, unknown> = {}) {}

  get k(): TestKernel {
    return this.kernel!;
  }

  get admin(): string {
    return this.k.adminToken;
  }

  async boot(): Promise<void> {
    this.kernel = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: this.config }] });
    await this.upload(this.admin);
  }

  /** Uploads the test bundles as the account of `token` (its private bundles). */
  async upload(token: string): Promise<void> {
    await uploadBundleAs(this.k, token, 'echo', echoFlow);
    await uploadBundleAs(this.k, token, 'ask', askUserFlow());
    await uploadBundleAs(this.k, token, 'fail', failFlow);
  }

  async stop(): Promise<void> {
    await this.kernel?.stop();
  }

  /** `POST /runs/start` (200 expected); answers the run id. */
  async start(body: Record<string, unknown>, token = this.admin): Promise<string> {
    const res = await this.k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: body });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  }

  async run(runId: string, token = this.admin): Promise<HistoryRun> {
    return (await this.k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<HistoryRun>();
  }

  async inputData(runId: string, token = this.admin): Promise<Record<string, unknown>> {
    return (await this.k.inject({ url: `/api/gateway/runs/${runId}/input_data`, token })).json<Record<string, unknown>>();
  }

  /** Waits until the run is in `status` (generous deadline: the machine may be loaded). */
  async until(runId: string, status: string, token = this.admin): Promise<HistoryRun> {
    return until(() => this.run(runId, token), { what: `run ${runId} to be ${status}`, ok: (r) => r.status === status, deadline: 120_000 });
  }

  /** One completed echo turn in `session`: `input` is its input_data (prompt, response, ...). */
  async turn(session: string, input: Record<string, unknown>, token = this.admin): Promise<HistoryRun> {
    return this.until(await this.start({ bundle_id: 'echo', session_id: session, input_data: input }, token), 'completed', token);
  }

  /** A completed echo run in `session` asking for replay; `input` adds to its input_data. Answers the run (its output holds the seeded context). */
  async replay(session: string, input: Record<string, unknown> = {}, token = this.admin): Promise<HistoryRun> {
    return this.turn(session, { use_session_history: true, ...input }, token);
  }
}

/** The messages a replaying echo run was started with. */
export function seeded(run: HistoryRun): ReplayedMessage[] {
  const messages = run.output?.context?.messages;
  expect(messages, `run ${run.run_id} has no seeded context.messages: ${JSON.stringify(run.output)}`).to.be.an('array');
  return messages!;
}

/** role:content of each message, for short comparisons. */
export function transcript(messages: ReplayedMessage[]): string[] {
  return messages.map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
}
