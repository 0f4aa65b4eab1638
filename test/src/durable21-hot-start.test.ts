/**
 * Issue 21 item 4 (the hot path): a run start no longer lists the bundle folders every time (a
 * folder's listing is reused while its mtime is unchanged), and its workspace record rides in the
 * run's creation commit. Neither may change what a start sees or keeps.
 */
import { copyFileSync, mkdirSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

function simpleBundle(id: string): Buffer {
  return bundle(id, '1.0.0', { id: 'main', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'end', type: 'on_flow_end' })], edges: edges('start -> end') });
}

describe('durable21 hot: the start path', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const data = tempDir('keel-d21-hot-');

  before(async () => {
    k = await createTestKernel({ dataDir: data.dir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  const upload = (file: Buffer) => {
    const body = multipart({ overwrite: 'true' }, { name: 'b.flow', bytes: file });
    return k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers });
  };
  const start = (bundleId: string) => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, flow_id: 'main', input_data: {} } });

  it('finds a bundle copied into the shared folder by hand after the folder listing was reused', async () => {
    expect((await upload(simpleBundle('hot-first'))).statusCode).to.equal(201);
    const shared = path.join(k.dataDir, 'plugins', 'gateway-runs', 'bundles');
    // The folder as it is when nothing was written to it for a while: its listing may be reused.
    const old = new Date(Date.now() - 60_000);
    utimesSync(shared, old, old);
    expect((await start('hot-first')).statusCode).to.equal(200);
    expect((await start('hot-first')).statusCode).to.equal(200);
    expect((await start('hot-second')).statusCode).to.equal(404);
    // An admin drops a second bundle in beside it (not through the upload route).
    const staging = path.join(k.dataDir, 'staging');
    mkdirSync(staging, { recursive: true });
    expect((await upload(simpleBundle('hot-second'))).statusCode).to.equal(201);
    const second = readdirSync(shared).find((n) => n.startsWith('hot-second@'))!;
    copyFileSync(path.join(shared, second), path.join(staging, second));
    // Gone and back again, by hand: the listing must follow both changes.
    rmSync(path.join(shared, second));
    utimesSync(shared, old, old);
    expect((await start('hot-second')).statusCode).to.equal(404);
    copyFileSync(path.join(staging, second), path.join(shared, second));
    expect((await start('hot-second')).statusCode).to.equal(200);
  });

  it('a no-op run costs two commits from its start to its end: the workspace record rides in the start\'s', async () => {
    expect((await upload(simpleBundle('hot-commits'))).statusCode).to.equal(201);
    const lastCommit = async () => (await k.inject({ url: '/api/gateway/host/status', token: k.adminToken })).json<{ data_dir: { storage: { last_commit_id: number } } }>().data_dir.storage.last_commit_id;
    const ended = async (runId: string) => {
      await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: k.adminToken })).json<{ status: string }>().status, { what: `run ${runId} to complete`, ok: (s) => s === 'completed', deadline: 60_000 });
    };
    // A first run warms what a first run writes once.
    await ended((await start('hot-commits')).json<{ run_id: string }>().run_id);
    const before = await lastCommit();
    const started = await start('hot-commits');
    expect(started.statusCode).to.equal(200);
    await ended(started.json<{ run_id: string }>().run_id);
    const commits = (await lastCommit()) - before;
    // The start (run, ledger registration and workspace record) and the end; the workspace record alone was one more.
    expect(commits, `${commits} commits`).to.equal(2);
  });

  it('records the workspace of a started run with the run: both are there once the start answers', async () => {
    expect((await upload(simpleBundle('hot-ws'))).statusCode).to.equal(201);
    const started = await start('hot-ws');
    expect(started.statusCode).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = (await k.inject({ method: 'GET', url: `/api/gateway/runs/${runId}`, token: k.adminToken })).json<{ run_id: string }>();
    expect(run.run_id).to.equal(runId);
    const ws = await k.inject({ method: 'GET', url: `/api/gateway/runs/${runId}/workspace`, token: k.adminToken });
    expect(ws.statusCode, ws.body).to.equal(200);
  });
});
