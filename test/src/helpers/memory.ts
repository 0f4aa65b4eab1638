/**
 * Helpers for the memory plugin's flow tests: a kernel on the real boot path with the gateway
 * plugins and `memory`, the non-admin accounts `bob` and `eve`, and `runFlow` that uploads a flow
 * built in the test as the account's own bundle, starts it (with a session and input data when
 * asked), waits for it to end and answers the run and its ledger.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { memoryPlugin } from '@keel/plugin-memory';
import { bundle, edges, multipart, node } from './flow-builder.js';
import type { LedgerItem, RunRecord } from './gateway-runs.js';
import { TINY_CHAT } from './shared-models.js';
import { until } from './until.js';

export interface FlowSpec {
  nodes: ReturnType<typeof node>[];
  links: string[];
}

export interface MemoryKernelOptions {
  memory?: Record<string, unknown>;
  inference?: Record<string, unknown>;
  /** Leave the memory plugin out (to see what a flow using its nodes gets). */
  withoutMemory?: boolean;
}

/** `start → <nodes in order> → end(pins)`: exec links through `chain`, data links as given. */
export function chainFlow(chain: ReturnType<typeof node>[], endPins: string[], dataLinks: string[]): FlowSpec {
  const ids = ['start', ...chain.map((n) => n.id), 'end'];
  const exec = ids.slice(1).map((id, i) => `${ids[i]} -> ${id}`);
  return {
    nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), ...chain, node({ id: 'end', type: 'on_flow_end', inputs: endPins })],
    links: [...exec, ...dataLinks],
  };
}

export function memoryGateway(options: MemoryKernelOptions = {}) {
  let k: TestKernel;
  const tokens = { bob: '', eve: '' };
  let flows = 0;
  const gw = {
    get k() {
      return k;
    },
    get admin() {
      return k.adminToken;
    },
    get bob() {
      return tokens.bob;
    },
    get eve() {
      return tokens.eve;
    },
    async boot() {
      const plugins = [
        { plugin: inferencePlugin, config: { defaultChatModel: TINY_CHAT, ...(options.inference ?? {}) } },
        ledgerPlugin,
        workspacesPlugin,
        gatewayRunsPlugin,
        ...(options.withoutMemory ? [] : [{ plugin: memoryPlugin, config: options.memory ?? {} }]),
      ];
      // Answers are checked against the routes' declared response schemas.
      k = await createTestKernel({ plugins, config: { server: { validateResponses: true } } });
      for (const account of ['bob', 'eve'] as const) {
        const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account } });
        expect(created.statusCode, created.body).to.be.oneOf([200, 201]);
        tokens[account] = created.json<{ token: { token: string } }>().token.token;
      }
    },
    stop: () => k?.stop(),
    /** Uploads `flow` as a new bundle of the token's account and runs it to its end. */
    async runFlow(token: string, flow: FlowSpec, start: { session_id?: string; input_data?: Record<string, unknown> } = {}) {
      const id = `mem${++flows}`;
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', { id: 'main', nodes: flow.nodes, edges: edges(...flow.links) }) });
      const uploaded = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
      expect(uploaded.statusCode, uploaded.body).to.equal(201);
      const started = await k.inject({
        method: 'POST',
        url: '/api/gateway/runs/start',
        token,
        payload: { bundle_id: id, ...(start.session_id ? { session_id: start.session_id } : {}), input_data: { _runtime: { provider: 'local', model: 'keel-tiny-chat' }, ...(start.input_data ?? {}) } },
      });
      expect(started.statusCode, started.body).to.be.oneOf([200, 201]);
      const runId = started.json<{ run_id: string }>().run_id;
      const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<RunRecord>(), {
        what: `run ${runId} to end`,
        ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status),
        deadline: 120_000,
      });
      const ledger = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger?limit=2000`, token })).json<{ items: LedgerItem[] }>().items;
      return { runId, run, ledger };
    },
    get: (token: string, url: string) => k.inject({ url, token }),
    del: (token: string, url: string) => k.inject({ method: 'DELETE', url, token }),
  };
  return gw;
}

/** A memory node with its pins and their values (as `pinDefaults`). */
export function memoryNode(id: string, type: string, values: Record<string, unknown>, outputs: string[], extraInputs: string[] = [], data: Record<string, unknown> = {}) {
  return node({ id, type, inputs: [...new Set([...Object.keys(values), ...extraInputs])], outputs, data: { pinDefaults: values, ...data } });
}

/** The completed records of one effect type. */
export function completedOf(ledger: LedgerItem[], type: string): LedgerItem[] {
  return ledger.filter((r) => r.effect?.type === type && r.status === 'completed');
}
