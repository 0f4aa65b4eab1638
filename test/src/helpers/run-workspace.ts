/**
 * A gateway on the real boot path (inference, ledger, workspaces, gateway-runs) with an admin and
 * two non-admin accounts (bob, eve), each with a tools bundle whose `tool_calls` node takes its
 * calls from input_data (`tools`), and one that waits for an answer first (`tools-ask`). Used by
 * the run-workspace-* tests.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { bundle, multipart, toolCallsFlow, toolsAfterAskFlow } from './flow-builder.js';
import { until, type RunRecord } from './gateway-runs.js';

export type ToolResult = { call_id: string; name: string; success: boolean; output: string | null; error: string | null };
export type Call = { name: string; arguments: Record<string, unknown>; call_id: string };
export const call = (call_id: string, name: string, args: Record<string, unknown>): Call => ({ call_id, name, arguments: args });

const TERMINAL = ['completed', 'failed', 'cancelled'];


export interface WorkspaceGateway {
  k: TestKernel;
  admin: string;
  bob: string;
  eve: string;
  start(token: string, payload: Record<string, unknown>): Promise<InjectResponse>;
  /** Starts `tools` (or `tools-ask` with `waitFirst`) and answers the run id. */
  startTools(token: string, calls: Call[], extra?: Record<string, unknown>, waitFirst?: boolean): Promise<string>;
  getRun(token: string, runId: string): Promise<RunRecord>;
  waitFor(token: string, runId: string, statuses: string[]): Promise<RunRecord>;
  /** Answers the ask_user wait of a `tools-ask` run, then waits for its end; the tool results by call id. */
  resumeAndFinish(token: string, runId: string): Promise<Map<string, ToolResult>>;
  /** Runs the calls to the end; the tool results by call id. */
  runTools(token: string, calls: Call[], extra?: Record<string, unknown>): Promise<{ runId: string; run: RunRecord; results: Map<string, ToolResult> }>;
  /** The run's recorded `_gateway_workspace`. */
  gatewayWorkspace(token: string, runId: string): Promise<Record<string, unknown>>;
  /** The absolute path of a run's gateway-made folder from what it recorded. */
  folderOf(token: string, runId: string): Promise<string>;
  get(token: string, url: string, headers?: Record<string, string>): Promise<InjectResponse>;
  stop(): Promise<void>;
}

export async function bootWorkspaceGateway(gatewayRuns: Record<string, unknown> = {}, workspaces: Record<string, unknown> = {}): Promise<WorkspaceGateway> {
  const k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, { plugin: workspacesPlugin, config: workspaces }, { plugin: gatewayRunsPlugin, config: gatewayRuns }] });
  const user = async (account: string) => {
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account } });
    expect(created.statusCode, created.body).to.equal(201);
    return created.json<{ token: { token: string } }>().token.token;
  };
  const bob = await user('bob');
  const eve = await user('eve');
  for (const token of [k.adminToken, bob, eve]) {
    for (const [id, flow] of [['tools', toolCallsFlow()], ['tools-ask', toolsAfterAskFlow()]] as const) {
      const body = multipart(token === k.adminToken ? { scope: 'private' } : {}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
      const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(201);
    }
  }
  const g: WorkspaceGateway = {
    k,
    admin: k.adminToken,
    bob,
    eve,
    start: (token, payload) => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload }),
    async startTools(token, calls, extra = {}, waitFirst = false) {
      const extraInput = (extra.input_data ?? {}) as Record<string, unknown>;
      const res = await g.start(token, { bundle_id: waitFirst ? 'tools-ask' : 'tools', ...extra, input_data: { ...extraInput, calls } });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ run_id: string }>().run_id;
    },
    getRun: async (token, runId) => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<RunRecord>(),
    waitFor: (token, runId, statuses) => until(() => g.getRun(token, runId), (r) => statuses.includes(r.status), 60_000),
    async resumeAndFinish(token, runId) {
      await g.waitFor(token, runId, ['waiting']);
      const resumed = await k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: randomBytes(8).toString('hex'), run_id: runId, type: 'resume', payload: { payload: { response: 'go' } } } });
      expect(resumed.statusCode, resumed.body).to.equal(200);
      const run = await g.waitFor(token, runId, TERMINAL);
      return new Map(((run.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
    },
    async runTools(token, calls, extra) {
      const runId = await g.startTools(token, calls, extra);
      const run = await g.waitFor(token, runId, TERMINAL);
      return { runId, run, results: new Map(((run.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r])) };
    },
    async gatewayWorkspace(token, runId) {
      const res = await k.inject({ url: `/api/gateway/runs/${runId}/input_data`, token });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ _gateway_workspace: Record<string, unknown> }>()._gateway_workspace;
    },
    async folderOf(token, runId) {
      const ws = await g.gatewayWorkspace(token, runId);
      return ws.kind === 'launch_folder' ? String(ws.path) : path.join(k.dataDir, String(ws.path));
    },
    get: (token, url, headers) => k.inject({ url, token, headers }),
    stop: () => k.stop(),
  };
  return g;
}
