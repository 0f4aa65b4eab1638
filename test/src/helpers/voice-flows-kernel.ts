/**
 * Helpers for the voice plugin's node and web tests: a kernel on the real boot path with the gateway
 * plugins, `artifacts` (unless left out) and `voice` on its offline defaults (espeak speaks,
 * pocketsphinx listens), the non-admin accounts `bob` and `eve`, `runFlow` that uploads a flow as
 * the account's own bundle, runs it to its end and answers the run and its ledger, and the
 * pocketsphinx check the recognition tests skip on.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { voicePlugin } from '@keel/plugin-voice';
import { bundle, edges, multipart, node } from './flow-builder.js';
import type { LedgerItem, RunRecord } from './gateway-runs.js';
import { until } from './until.js';

export const POCKETSPHINX_BIN = '/usr/bin/pocketsphinx_continuous';
export const POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

/** Skips the test (or suite) with the Debian sentence when the recogniser is not installed. */
export function skipWithoutPocketsphinx(test: Mocha.Context): void {
  if (!existsSync(POCKETSPHINX_BIN) || !existsSync(POCKETSPHINX_MODEL)) {
    console.log('      (skipped: pocketsphinx is not installed; apt-get install pocketsphinx pocketsphinx-en-us)');
    test.skip();
  }
}

export interface VoiceKernelOptions {
  voice?: Record<string, unknown>;
  /** Leave the artifacts plugin out (to see what the voice nodes do without it). */
  withoutArtifacts?: boolean;
}

/** `start → <nodes in order> → end(pins)`: exec links through the chain, data links as given. */
export function chain(nodes: ReturnType<typeof node>[], endPins: string[], dataLinks: string[]) {
  const ids = ['start', ...nodes.map((n) => n.id), 'end'];
  return {
    nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), ...nodes, node({ id: 'end', type: 'on_flow_end', inputs: endPins })],
    links: [...ids.slice(1).map((id, i) => `${ids[i]} -> ${id}`), ...dataLinks],
  };
}

/** A node with its pins and their values (as `pinDefaults`). */
export function voiceNode(id: string, type: string, values: Record<string, unknown>, outputs: string[], extraInputs: string[] = [], data: Record<string, unknown> = {}) {
  return node({ id, type, inputs: [...new Set([...Object.keys(values), ...extraInputs])], outputs, data: { pinDefaults: values, ...data } });
}

export function voiceKernel(options: VoiceKernelOptions = {}) {
  let k: TestKernel;
  const tokens = { bob: '', eve: '' };
  let flows = 0;
  return {
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
      k = await createTestKernel({
        plugins: [
          inferencePlugin,
          ledgerPlugin,
          workspacesPlugin,
          gatewayRunsPlugin,
          ...(options.withoutArtifacts ? [] : [artifactsPlugin]),
          { plugin: voicePlugin, config: options.voice ?? {} },
        ],
        config: { server: { logLevel: 'silent' } },
      });
      for (const account of ['bob', 'eve'] as const) {
        const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account } });
        expect(created.statusCode, created.body).to.be.oneOf([200, 201]);
        tokens[account] = created.json<{ token: { token: string } }>().token.token;
      }
    },
    stop: () => k?.stop(),
    /** Uploads the flow as a new bundle of the token's account and starts it; answers the run id. */
    async startFlow(token: string, flow: { nodes: unknown[]; links: string[] }, inputData: Record<string, unknown> = {}): Promise<string> {
      const id = `voice${++flows}`;
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', { id: 'main', nodes: flow.nodes, edges: edges(...flow.links) }) });
      const uploaded = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
      expect(uploaded.statusCode, uploaded.body).to.equal(201);
      const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: id, input_data: inputData } });
      expect(started.statusCode, started.body).to.be.oneOf([200, 201]);
      return started.json<{ run_id: string }>().run_id;
    },
    /** Uploads the flow as a new bundle of the token's account and runs it to its end. */
    async runFlow(token: string, flow: { nodes: unknown[]; links: string[] }, inputData: Record<string, unknown> = {}) {
      const runId = await this.startFlow(token, flow, inputData);
      const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<RunRecord>(), {
        what: `run ${runId} to end`,
        ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status),
        deadline: 120_000,
      });
      const ledger = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger?limit=2000`, token })).json<{ items: LedgerItem[] }>().items;
      return { runId, run, ledger };
    },
    get: (token: string, url: string) => k.inject({ url, token }),
  };
}
