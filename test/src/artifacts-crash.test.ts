import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { ServedKeel, until } from './helpers/gateway-runs.js';

/**
 * Blobs survive a crash whole or not at all: a real `keel serve` is killed (-9) in the middle of an
 * upload. After the restart the acknowledged upload is listed and served intact, the interrupted
 * one left nothing (no record, no blob under a digest name, no temporary file), and every blob's
 * name is the digest of its bytes. A temporary file of another live process is left alone.
 */

const PLUGINS = ['@keel/plugin-inference', '@keel/plugin-ledger', '@keel/plugin-workspaces', '@keel/plugin-gateway-runs', '@keel/plugin-artifacts'].map((use) => ({ use }));

function allFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('artifacts: crash safety of blobs', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  after(() => keel.dispose());

  it('keeps the acknowledged upload and nothing of one cut by kill -9', async () => {
    keel.configure(PLUGINS);
    await keel.start();
    const boundary = 'crashboundary';
    const head = (name: string) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\ncrash\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const kept = Buffer.alloc(200_000, 1);
    const done = await fetch(`${keel.url}/api/gateway/attachments/upload`, { method: 'POST', headers: { authorization: `Bearer ${keel.adminToken}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body: Buffer.concat([head('kept.bin'), kept, tail]) });
    expect(done.status).to.equal(200);
    const keptId = ((await done.json()) as { artifact: { artifact_id: string } }).artifact.artifact_id;

    // A second upload sends its head and part of its file, then the server dies.
    const tmp = path.join(keel.dataDir, 'plugins', 'artifacts', 'tmp');
    const req = http.request(`${keel.url}/api/gateway/attachments/upload`, { method: 'POST', headers: { authorization: `Bearer ${keel.adminToken}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } });
    req.on('error', () => undefined);
    req.write(head('cut.bin'));
    req.write(Buffer.alloc(300_000, 2));
    await until(() => allFiles(tmp).some((f) => statSync(f).size > 0), { what: 'the cut upload to reach a temporary file', deadline: 60_000 });
    // Beside it: a temporary file of a live process (as a `keel runner` writing beside the server
    // has: this test's pid stands for it) and one of a process long gone.
    writeFileSync(path.join(tmp, `${process.pid}.live.part`), 'still being written');
    writeFileSync(path.join(tmp, '4194305.gone.part'), 'left by a dead process');
    await keel.restart();
    req.destroy();

    expect(allFiles(tmp).map((f) => path.basename(f))).to.deep.equal([`${process.pid}.live.part`]);
    const blobs = allFiles(path.join(keel.dataDir, 'plugins', 'artifacts', 'accounts'));
    expect(blobs.length).to.equal(1);
    for (const blob of blobs) expect(createHash('sha256').update(readFileSync(blob)).digest('hex')).to.equal(path.basename(blob));
    const list = await keel.call('GET', '/api/gateway/sessions/crash/artifacts');
    expect((list.body.items as Array<{ artifact_id: string; filename: string }>).map((r) => r.filename)).to.deep.equal(['kept.bin']);
    const bytes = await fetch(`${keel.url}/api/gateway/runs/session_memory_crash/artifacts/${keptId}/content`, { headers: { authorization: `Bearer ${keel.adminToken}` } });
    expect(Buffer.from(await bytes.arrayBuffer()).equals(kept)).to.equal(true);
  });
});
