/**
 * The 500s found by attacking `keel serve` with bad input (issue 9, item 9), each now a 4xx in the
 * route's error shape: deep JSON, ids longer than LMDB's key limit, control bytes in the legacy
 * redirect, truncated and empty uploads. Runs on config/default.json's plugins.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { repoRoot } from './helpers/paths.js';

/** Longer than LMDB's key limit (1,978 bytes) on its own. */
const LONG = 'x'.repeat(2_100);
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

type GatewayDetail = { detail: { reason_code: string; message: string; field?: string } };

/** A 400 in the gateway's shape, with a sentence; answers the detail. */
function gateway400(res: InjectResponse, reason?: string): GatewayDetail['detail'] {
  expect(res.statusCode, res.body).to.equal(400);
  const detail = res.json<GatewayDetail>().detail;
  expect(detail.message).to.match(/\.$/);
  if (reason) expect(detail.reason_code).to.equal(reason);
  return detail;
}

/** The hub's refusals: `{detail: "sentence"}` (400) or its validation list (422). */
function hub4xx(res: InjectResponse): void {
  expect(res.statusCode, res.body).to.be.oneOf([400, 404, 422]);
  expect(res.json<{ detail: unknown }>().detail).to.not.equal(undefined);
}

describe('bad input answers 4xx in the route\'s shape, never 500', function () {
  this.timeout(120_000);
  let kernel: TestKernel;
  let runId: string;
  let ada: string;
  let messageId: string;
  const admin = (method: string, url: string, payload?: unknown, headers?: Record<string, string>) =>
    kernel.inject({ method, url, token: kernel.adminToken, payload, headers });
  const asAda = (method: string, url: string, payload?: unknown) => kernel.inject({ method, url: `/hub${url}`, token: ada, payload });

  before(async () => {
    const defaults = JSON.parse(readFileSync(path.join(repoRoot, 'config', 'default.json'), 'utf8')) as { plugins: unknown[] };
    kernel = await createTestKernel({ baseDir: repoRoot, config: { server: { logLevel: 'silent' }, plugins: defaults.plugins } });
    const flow = { id: 'waits', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'wait', type: 'wait_event', data: { eventKey: 'never' } }), node({ id: 'end', type: 'on_flow_end' })], edges: edges('start -> wait', 'wait -> end') };
    const upload = multipart({}, { name: 'waits.flow', bytes: bundle('waits', '1.0.0', flow) });
    expect((await admin('POST', '/api/gateway/bundles/upload', upload.payload, upload.headers)).statusCode).to.equal(201);
    const started = await admin('POST', '/api/gateway/runs/start', { bundle_id: 'waits', input_data: {} });
    expect(started.statusCode, started.body).to.equal(200);
    runId = started.json<{ run_id: string }>().run_id;

    const seat = await admin('POST', '/hub/agents', { id: 'ada', operator: true });
    ada = seat.json<{ api_key: string }>().api_key;
    const bob = (await admin('POST', '/hub/agents', { id: 'bob' })).json<{ api_key: string }>().api_key;
    const posted = await kernel.inject({ method: 'POST', url: '/hub/channels/commons/messages', token: bob, payload: { body: 'rate me' } });
    expect(posted.statusCode, posted.body).to.equal(200);
    messageId = posted.json<{ id: string }>().id;
  });
  after(() => kernel?.stop());

  describe('JSON nested 2,000 levels deep (a stack overflow before)', () => {
    it('is refused with 400 on runs/start and commands, naming the limit', async () => {
      for (const [url, body] of [
        ['/api/gateway/runs/start', `{"bundle_id":"waits","input_data":${nested(2_000)}}`],
        ['/api/gateway/commands', `{"run_id":"${'r'}","type":"emit_event","payload":${nested(2_000)}}`],
      ] as const) {
        const detail = gateway400(await admin('POST', url, body, { 'content-type': 'application/json' }), 'json_too_deep');
        expect(detail.message).to.contain('64 levels').and.contain('jsonDepthLimit');
      }
    });

    it('is refused with 400 on hub messages and the hub store, in the hub\'s shape', async () => {
      for (const [method, url, body] of [
        ['POST', '/channels/commons/messages', `{"body":"x","meta":${nested(2_000)}}`],
        ['PUT', '/channels/commons/store/deep', `{"value":${nested(2_000)}}`],
      ] as const) {
        const res = await kernel.inject({ method, url: `/hub${url}`, token: ada, payload: body, headers: { 'content-type': 'application/json' } });
        expect(res.statusCode, res.body).to.equal(400);
        expect(res.json<{ detail: string }>().detail).to.contain('64 levels');
      }
    });

    it('lets a body exactly at the limit through, and follows the setting', async () => {
      const atLimit = await asAda('PUT', '/channels/commons/store/fine', JSON.parse(`{"value":${nested(63)}}`));
      expect(atLimit.statusCode, atLimit.body).to.equal(200);
      const strict = await createTestKernel({ config: { server: { logLevel: 'silent', jsonDepthLimit: 4 } }, baseDir: repoRoot, plugins: [] });
      try {
        const res = await strict.inject({ method: 'POST', url: '/api/gateway/admin/users', token: strict.adminToken, payload: { account: 'deep', display_name: { a: { b: { c: { d: 1 } } } } } });
        expect(gateway400(res, 'json_too_deep').message).to.contain('4 levels');
      } finally {
        await strict.stop();
      }
    });
  });

  describe('ids longer than LMDB\'s key limit', () => {
    it('commands: command_id and run_id answer 400 naming the field', async () => {
      expect(gateway400(await admin('POST', '/api/gateway/commands', { command_id: LONG, run_id: runId, type: 'pause', payload: {} })).field).to.equal('body.command_id');
      expect(gateway400(await admin('POST', '/api/gateway/commands', { run_id: LONG, type: 'pause', payload: {} })).field).to.equal('body.run_id');
    });

    it('provider-profile discover answers 400 naming profile_id', async () => {
      const res = await admin('POST', '/api/gateway/config/provider-endpoint-profiles/discover-models', { profile_id: LONG });
      expect(gateway400(res).field).to.equal('body.profile_id');
    });

    it('hub invites, ratings, delegations and blocks answer 4xx in the hub\'s shape', async () => {
      hub4xx(await asAda('POST', '/channels/commons/invites', { agent_id: LONG }));
      hub4xx(await asAda('PUT', `/channels/commons/messages/${LONG}/rating`, { value: 1 }));
      hub4xx(await kernel.inject({ method: 'PUT', url: '/hub/admin/delegation', token: kernel.adminToken, payload: { agent_id: LONG, powers: ['moderation'] } }));
      hub4xx(await kernel.inject({ method: 'DELETE', url: `/hub/admin/delegation/${LONG}`, token: kernel.adminToken }));
      hub4xx(await asAda('DELETE', `/hub/blocks/${LONG}`));
      // A rating on a real message still works: the caps are on the ids, not the feature.
      const rated = await asAda('PUT', `/channels/commons/messages/${messageId}/rating`, { value: 1 });
      expect(rated.statusCode, rated.body).to.equal(200);
    });
  });

  describe('the deprecated /core/v1 redirect', () => {
    it('refuses control bytes with 400 in the OpenAI shape, without a token', async () => {
      for (const url of ['/core/v1/%00', '/core/v1/models/%0d%0aSet-Cookie:%20x=1', '/core/v1/a%7Fb']) {
        const res = await kernel.inject({ url });
        expect(res.statusCode, `${url}: ${res.body}`).to.equal(400);
        expect(res.json<{ error: { type: string; code: string } }>().error).to.include({ type: 'invalid_request_error', code: 'invalid_path' });
      }
    });

    it('redirects non-ASCII and reserved characters percent-encoded, keeping their meaning', async () => {
      const res = await kernel.inject({ url: '/core/v1/models/caf%C3%A9%3F%2523?q=%FF' });
      expect(res.statusCode).to.equal(308);
      expect(res.headers.location).to.equal('/v1/models/caf%C3%A9%3F%2523?q=%FF');
    });
  });

  describe('broken uploads on bundles and the catalog', () => {
    const boundary = 'keelbad';
    const type = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.flow"\r\nContent-Type: application/zip\r\n\r\nPK\u0003\u0004abc`;
    const empty = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.flow"\r\nContent-Type: application/zip\r\n\r\n\r\n--${boundary}--\r\n`;

    it('an upload larger than server.bodyLimitBytes answers 413 with a sentence', async () => {
      const defaults = JSON.parse(readFileSync(path.join(repoRoot, 'config', 'default.json'), 'utf8')) as { plugins: unknown[] };
      const small = await createTestKernel({ baseDir: repoRoot, config: { server: { logLevel: 'silent', bodyLimitBytes: 1024 }, plugins: defaults.plugins } });
      try {
        const big = multipart({}, { name: 'big.flow', bytes: Buffer.alloc(4096, 1) });
        const res = await small.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: small.adminToken, payload: big.payload, headers: big.headers });
        expect(res.statusCode, res.body).to.equal(413);
        expect(res.json<GatewayDetail>().detail).to.include({ reason_code: 'payload_too_large' });
      } finally {
        await small.stop();
      }
    });

    for (const url of ['/api/gateway/bundles/upload', '/api/gateway/admin/workflow-catalog/upload']) {
      it(`${url}: a truncated body, an empty file and a missing boundary answer 400 with a sentence`, async () => {
        expect(gateway400(await admin('POST', url, truncated, type), 'invalid_multipart').message).to.contain('multipart/form-data');
        expect(gateway400(await admin('POST', url, empty, type), 'empty_file').message).to.contain('empty');
        gateway400(await admin('POST', url, 'xx', { 'content-type': 'multipart/form-data' }), 'invalid_multipart');
      });
    }
  });
});
