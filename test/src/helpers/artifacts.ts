/**
 * Helpers for the artifacts tests: a kernel on the real boot path with the gateway plugins and
 * `artifacts`, an admin and the non-admin accounts `bob` and `eve`, and multipart bodies built by hand
 * (so a test can send exactly the broken or hostile body it means).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { askUserFlow, bundle, multipart, toolCallsFlow } from './flow-builder.js';
import { until } from './until.js';
import type { ArtifactReference } from '@keel/plugin-artifacts';

export interface Part {
  name: string;
  value?: string;
  /** A file part: its name as sent in the Content-Disposition header (quoted as is). */
  filename?: string;
  contentType?: string;
  bytes?: Buffer;
}

/** A multipart body of these parts, in order. */
export function form(parts: Part[], boundary = `----keelart${Math.random().toString(16).slice(2)}`): { payload: Buffer; headers: Record<string, string> } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), part.bytes ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** The artifact reference an upload answers (the plugin's own wire type). */
export type ArtifactRef = ArtifactReference;

export interface UploadAnswer {
  ok: boolean;
  run_id: string;
  artifact: ArtifactRef;
  attachment: ArtifactRef;
  metadata: Record<string, unknown> & { tags: Record<string, string>; path: string; size_bytes: number };
}

/** A test kernel with the artifacts plugin (`config` its settings, `workspaces` those of the workspaces plugin) and two non-admin accounts. */
export function artifactsGateway(config: Record<string, unknown> = {}, workspaces: Record<string, unknown> = {}) {
  let k: TestKernel;
  const tokens = { bob: '', eve: '' };
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
      k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, { plugin: workspacesPlugin, config: workspaces }, gatewayRunsPlugin, { plugin: artifactsPlugin, config }] });
      for (const account of ['bob', 'eve'] as const) {
        const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account } });
        expect(created.statusCode, created.body).to.equal(201);
        tokens[account] = created.json<{ token: { token: string } }>().token.token;
      }
      // Every account its own private bundles: one that waits for an answer, one that runs tool calls from input_data.
      for (const token of [k.adminToken, tokens.bob, tokens.eve]) {
        for (const [id, flow] of [['ask', askUserFlow()], ['tools', toolCallsFlow()]] as const) {
          const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
          const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
          expect(res.statusCode, res.body).to.equal(201);
        }
      }
    },
    /** Starts a run of the caller's bundle `ask` (it waits) or `tools`; answers the raw response. */
    start: (token: string, payload: { bundle?: 'ask' | 'tools'; session_id?: string; input_data?: Record<string, unknown> }) =>
      k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: payload.bundle ?? 'ask', ...(payload.session_id ? { session_id: payload.session_id } : {}), input_data: payload.input_data ?? {} } }),
    /** Starts a run (200 expected) and answers its id. */
    async run(token: string, payload: { bundle?: 'ask' | 'tools'; session_id?: string; input_data?: Record<string, unknown> }): Promise<string> {
      const res = await this.start(token, payload);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ run_id: string }>().run_id;
    },
    /** Waits until the run is finished (completed, failed or cancelled); answers its record. */
    finished: (token: string, runId: string) =>
      until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<{ status: string; error: string | null; output: Record<string, unknown> | null }>(), { what: `run ${runId} to finish`, ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status), deadline: 60_000 }),
    stop: () => k?.stop(),
    /** Posts a multipart upload; answers the raw response. */
    upload: (token: string, parts: Part[]) => {
      const body = form(parts);
      return k.inject({ method: 'POST', url: '/api/gateway/attachments/upload', token, payload: body.payload, headers: body.headers });
    },
    /** Uploads `bytes` as `filename` into `session` (200 expected) and answers the body. */
    async put(token: string, session: string, filename: string, bytes: Buffer | string, extra: Part[] = [], contentType?: string): Promise<UploadAnswer> {
      const res = await this.upload(token, [{ name: 'session_id', value: session }, ...extra, { name: 'file', filename, contentType, bytes: Buffer.from(bytes) }]);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<UploadAnswer>();
    },
    get: (token: string, url: string) => k.inject({ url, token }),
    post: (token: string, url: string, payload: unknown) => k.inject({ method: 'POST', url, token, payload: payload as Record<string, unknown> }),
  };
}

