import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { form } from './helpers/artifacts.js';

/**
 * The search index is derived from the records: it survives a restart, and when it is missing or
 * of an older layout (an index written before search existed, or by an older build) it is rebuilt
 * from the records at start, so search never silently misses artifacts.
 */
describe('artifact search: the index across restarts', function () {
  this.timeout(180_000);
  let dataDir = '';
  let k: TestKernel | null = null;
  const boot = async () => (k = await createTestKernel({ dataDir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, artifactsPlugin] }));
  const total = async (query = '') => {
    const res = await k!.inject({ url: `/api/gateway/artifacts/search?include_stats=true${query}`, token: k!.adminToken });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ total: number }>().total;
  };

  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'keel-search-rebuild-'));
  });
  after(async () => {
    await k?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds the same artifacts after a restart, and after the index was lost or is of an older layout', async () => {
    await boot();
    for (const name of ['a.png', 'b.txt', 'c.json']) {
      const body = form([{ name: 'session_id', value: 'keep' }, { name: 'tags', value: '{"topic":"kept"}' }, { name: 'file', filename: name, bytes: Buffer.from(name) }]);
      const res = await k!.inject({ method: 'POST', url: '/api/gateway/attachments/upload', token: k!.adminToken, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(200);
    }
    expect(await total()).to.equal(3);
    await k!.stop();

    await boot();
    expect(await total()).to.equal(3);
    await k!.stop();

    // The index emptied and marked with an older layout, as a build before it would leave it.
    const env = open({ path: path.join(dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
    env.openDB({ name: 'artifacts:search-rows', sharedStructuresKey: Symbol.for('structures') }).clearSync();
    env.openDB({ name: 'artifacts:search-text', encoding: 'string' }).clearSync();
    await env.openDB({ name: 'artifacts:search-meta' }).put('layout_version', 1);
    await env.close();

    await boot();
    expect(await total()).to.equal(3);
    expect(await total('&tags=topic=kept&query=b.txt')).to.equal(1);
  });
});
