import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { OPEN_GATE, relayTokenOf } from './helpers/relay-gate.js';
import { form } from './helpers/artifacts.js';

/**
 * Local files and conversations across a restart on the same data directory: records and bytes
 * stay, the upload budget counts what is stored, and what a crash left (temporary files, bytes
 * without a record) is removed at start.
 */
describe('relay catalog: storage across a restart', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'relay-catalog-restart-'));
  const config = { gate: OPEN_GATE, hosted: { accounts: [] }, uploads: { maxUploadBytes: 1024, maxTotalUploadBytes: 1500, maxFiles: 10 } };
  const boot = () => createTestKernel({ dataDir, plugins: [{ plugin: relayPlugin, config }] });
  const upload = (k: TestKernel, name: string, bytes: Buffer) => {
    const body = form([{ name: 'file', filename: name, bytes }]);
    return k.inject({ method: 'POST', url: '/v1/files', token: relayTokenOf(k), payload: body.payload, headers: body.headers });
  };
  let k: TestKernel | undefined;
  after(async () => {
    await k?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps files and conversations, counts them against the limits, and sweeps crash leftovers', async () => {
    k = await boot();
    const file = (await upload(k, 'kept.bin', Buffer.alloc(1000, 1))).json<{ id: string }>();
    const conv = (await k.inject({ method: 'POST', url: '/v1/conversations', token: relayTokenOf(k), payload: { metadata: { a: 1 } } })).json<{ id: string }>();
    await k.stop();

    const filesDir = path.join(dataDir, 'plugins', 'relay', 'files');
    const strayBytes = path.join(filesDir, `file_${'ab'.repeat(16)}`);
    const strayTmp = path.join(filesDir, 'tmp', '1.deadbeef.part');
    writeFileSync(strayBytes, 'orphan');
    writeFileSync(strayTmp, 'partial');

    k = await boot();
    expect(existsSync(strayBytes)).to.equal(false);
    expect(existsSync(strayTmp)).to.equal(false);
    const list = (await k.inject({ url: '/v1/files', token: relayTokenOf(k) })).json<{ data: Array<{ id: string }> }>();
    expect(list.data.map((f) => f.id)).to.deep.equal([file.id]);
    expect((await k.inject({ url: `/v1/files/${file.id}/content`, token: relayTokenOf(k) })).rawPayload).to.deep.equal(Buffer.alloc(1000, 1));
    expect((await k.inject({ url: `/v1/conversations/${conv.id}`, token: relayTokenOf(k) })).json()).to.deep.include({ id: conv.id, metadata: { a: 1 } });
    const over = await upload(k, 'over.bin', Buffer.alloc(600, 2));
    expect(over.statusCode).to.equal(413);
    expect((await upload(k, 'fits.bin', Buffer.alloc(500, 2))).statusCode).to.equal(200);
  });
});
