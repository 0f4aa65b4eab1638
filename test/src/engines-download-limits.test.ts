import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ModelFileServer } from './helpers/model-file-server.js';
import { repoRoot } from './helpers/paths.js';
import { until } from './helpers/until.js';

// The bounds of model downloads, each a setting (plugins.inference.downloads.*), tested with small
// values against a local HTTP server serving a copy of Keel's tiny chat model (3.7 MB).
const tinyGguf = readFileSync(path.join(repoRoot, 'models', 'keel-tiny-chat', 'keel-tiny-chat.gguf'));
const MAX_BYTES = 2_000_000;

interface Download {
  id: string;
  state: string;
  bytes: number;
  total: number | null;
  attempts: number;
  error: { reason_code: string; message: string } | null;
}

/** A kernel with the given download settings and a model server, for one describe block. */
function limitsSuite(downloads: Record<string, number>) {
  const suite = { k: null as unknown as TestKernel, server: null as unknown as ModelFileServer };
  before(async () => {
    suite.server = await new ModelFileServer().start();
    suite.k = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { bundledModels: false, downloads } }] });
  });
  after(async () => {
    await suite.k?.stop();
    await suite.server?.close();
  });
  return suite;
}

function helpers(suite: { k: TestKernel; server: ModelFileServer }) {
  const modelsDir = () => path.join(suite.k.dataDir, 'models');
  const start = (url: string, extra: Record<string, unknown> = {}) => suite.k.inject({ method: 'POST', url: '/api/gateway/models/download', token: suite.k.adminToken, payload: { url, ...extra } });
  const get = async (id: string) => (await suite.k.inject({ url: `/api/gateway/models/downloads/${id}`, token: suite.k.adminToken })).json<Download>();
  const settled = (id: string, what: string) => until(() => get(id), { what, ok: (d) => ['completed', 'failed', 'cancelled'].includes(d.state), deadline: 60_000 });
  const cancel = (id: string) => suite.k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${id}/cancel`, token: suite.k.adminToken });
  const serve = (name: string, extra: { chunked?: boolean; body?: Buffer } = {}) => {
    suite.server.files.set(`/f/${name}`, { body: extra.body ?? tinyGguf, chunked: extra.chunked });
    return `${suite.server.url}/f/${name}`;
  };
  return { modelsDir, start, get, settled, cancel, serve };
}

// The default idle timeout (60 s) here, so a held response stays held while the test looks at the queue.
describe('engines: download limits (size cap, concurrency and queue)', function () {
  const suite = limitsSuite({ maxBytes: MAX_BYTES, maxConcurrent: 1, maxQueued: 1 });
  const { modelsDir, start, get, settled, cancel, serve } = helpers(suite);

  it('refuses a file whose announced size is over downloads.maxBytes, before fetching its body', async () => {
    const id = (await start(serve('big.gguf'))).json<Download>().id;
    const done = await settled(id, 'the download to be refused');
    expect(done).to.deep.include({ state: 'failed', bytes: 0 });
    expect(done.error!.reason_code).to.equal('too_large');
    expect(done.error!.message).to.contain(`over the limit of ${MAX_BYTES} bytes (setting downloads.maxBytes)`);
    expect(readdirSync(modelsDir()).filter((f) => f.startsWith('big'))).to.deep.equal([]);
  });

  it('stops a download of unknown size (no Content-Length) at downloads.maxBytes', async () => {
    const id = (await start(serve('chunked.gguf', { chunked: true }))).json<Download>().id;
    const done = await settled(id, 'the download to be refused');
    expect(done.state).to.equal('failed');
    expect(done.error!.reason_code).to.equal('too_large');
    expect(done.bytes).to.be.at.most(MAX_BYTES);
    expect(readdirSync(modelsDir()).filter((f) => f.startsWith('chunked'))).to.deep.equal([]);
  });

  it('runs downloads.maxConcurrent at once, queues downloads.maxQueued more, and refuses the next with 429', async () => {
    const small = tinyGguf.subarray(0, 1_000_000);
    suite.server.hold('/f/one.gguf', 100_000);
    const one = (await start(serve('one.gguf', { body: small }))).json<Download>();
    await until(() => get(one.id), { what: 'the first download to run', ok: (d) => d.state === 'downloading' && d.bytes === 100_000 });
    const two = await start(serve('two.gguf', { body: small }));
    expect(two.statusCode).to.equal(202);
    expect(two.json<Download>().state).to.equal('queued');
    const three = await start(serve('three.gguf', { body: small }));
    expect(three.statusCode).to.equal(429);
    expect(three.json<{ detail: { reason_code: string; message: string } }>().detail).to.deep.include({ reason_code: 'download_queue_full' });
    expect(suite.server.requestsFor('/f/two.gguf'), 'the queued download waits').to.deep.equal([]);
    expect((await cancel(one.id)).statusCode).to.equal(200);
    suite.server.release('/f/one.gguf');
    const second = await settled(two.json<Download>().id, 'the queued download to run once a slot is free');
    expect(second.state, JSON.stringify(second.error)).to.equal('completed');
    expect(existsSync(path.join(modelsDir(), 'two.gguf'))).to.equal(true);
    expect(suite.server.requestsFor('/f/three.gguf')).to.deep.equal([]);
  });

});

describe('engines: download limits (idle timeout, retries)', function () {
  const suite = limitsSuite({ idleTimeoutMs: 2000, maxRetries: 2 });
  const { modelsDir, start, settled, serve } = helpers(suite);

  it('drops a connection that goes quiet for downloads.idleTimeoutMs and resumes it with a Range request', async () => {
    suite.server.hold('/f/quiet.gguf', 300_000);
    const id = (await start(serve('quiet.gguf', { body: tinyGguf.subarray(0, 1_000_000) }))).json<Download>().id;
    // The held response never ends; after the idle timeout the download asks again from byte 300000, which is not held.
    const done = await settled(id, 'the quiet download to resume and finish');
    expect(done.state, JSON.stringify(done.error)).to.equal('completed');
    // Normally two connections; a very slow machine may add one more before the held byte.
    const ranges = suite.server.requestsFor('/f/quiet.gguf').map((r) => r.range);
    expect(ranges[0]).to.equal(null);
    expect(ranges.at(-1)).to.equal('bytes=300000-');
    expect(done.attempts).to.equal(ranges.length);
    suite.server.release('/f/quiet.gguf');
  });

  it('gives up after downloads.maxRetries connections without a new byte, keeping the bytes for a later try', async () => {
    const url = serve('dead.gguf', { body: tinyGguf.subarray(0, 1_000_000) });
    suite.server.drops.set('/f/dead.gguf', { afterBytes: 0, times: 100 });
    const id = (await start(url)).json<Download>().id;
    const done = await settled(id, 'the download to give up');
    expect(done.state).to.equal('failed');
    expect(done.error!.reason_code).to.equal('connection_dropped');
    expect(done.error!.message).to.contain('setting downloads.maxRetries');
    expect(done.attempts).to.equal(3);
    // The server comes back: downloading the same URL again finishes the file.
    suite.server.drops.delete('/f/dead.gguf');
    const again = (await start(url)).json<Download>().id;
    expect((await settled(again, 'the second try to finish')).state).to.equal('completed');
    expect(readFileSync(path.join(modelsDir(), 'dead.gguf')).equals(tinyGguf.subarray(0, 1_000_000))).to.equal(true);
  });
});
