import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { createAccount } from './helpers/accounts.js';
import { ModelFileServer } from './helpers/model-file-server.js';
import { repoRoot, tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

// Model downloads through the HTTP API, fetched from a local node:http server serving a copy of
// Keel's own tiny chat model (a real GGUF file), with ranges, dropped connections and held bodies.
const tinyGguf = readFileSync(path.join(repoRoot, 'models', 'keel-tiny-chat', 'keel-tiny-chat.gguf'));
const tinySha = createHash('sha256').update(tinyGguf).digest('hex');
const plugin = { plugin: inferencePlugin, config: { bundledModels: false } };

interface Download {
  id: string;
  state: string;
  bytes: number;
  total: number | null;
  progress: number | null;
  attempts: number;
  file: string;
  model: string;
  url: string;
  sha256_actual: string | null;
  error: { reason_code: string; message: string } | null;
}

describe('engines: model downloads (admin) from a local HTTP server', function () {
  let k: TestKernel;
  let server: ModelFileServer;
  let alice: string;

  before(async () => {
    server = await new ModelFileServer().start();
    k = await createTestKernel({ plugins: [plugin] });
    alice = await createAccount(k, 'alice');
  });
  after(async () => {
    await k?.stop();
    await server?.close();
  });

  const modelsDir = () => path.join(k.dataDir, 'models');
  const start = (payload: unknown, token = k.adminToken) => k.inject({ method: 'POST', url: '/api/gateway/models/download', token, payload });
  const get = async (id: string) => (await k.inject({ url: `/api/gateway/models/downloads/${id}`, token: k.adminToken })).json<Download>();
  const settled = (id: string, what: string) => until(() => get(id), { what, ok: (d) => ['completed', 'failed', 'cancelled'].includes(d.state), deadline: 60_000 });
  const modelIds = async () => (await k.inject({ url: '/v1/models', token: k.adminToken })).json<{ data: Array<{ id: string }> }>().data.map((m) => m.id);
  const serve = (name: string, body: Buffer = tinyGguf, extra: { contentType?: string; chunked?: boolean } = {}) => {
    server.files.set(`/files/${name}`, { body, ...extra });
    return `${server.url}/files/${name}`;
  };

  it('downloads a GGUF model with its checksum; the model is then listed by /v1/models', async () => {
    const url = serve('first-model.gguf');
    const res = await start({ url, sha256: tinySha.toUpperCase() });
    expect(res.statusCode, res.body).to.equal(202);
    const created = res.json<Download>();
    expect(created).to.include({ file: 'first-model.gguf', model: 'local/first-model' });
    expect(['queued', 'downloading']).to.include(created.state);
    const done = await settled(created.id, 'the download to finish');
    expect(done, JSON.stringify(done.error)).to.include({ state: 'completed', bytes: tinyGguf.length, total: tinyGguf.length, progress: 1, sha256_actual: tinySha });
    expect(readFileSync(path.join(modelsDir(), 'first-model.gguf')).equals(tinyGguf)).to.equal(true);
    expect(existsSync(path.join(modelsDir(), 'first-model.gguf.part'))).to.equal(false);
    expect(await modelIds()).to.include('local/first-model');
    const list = (await k.inject({ url: '/api/gateway/models/downloads', token: k.adminToken })).json<{ items: Download[] }>();
    expect(list.items.map((d) => d.id)).to.include(created.id);
  });

  it('shows progress while the bytes arrive (bytes, total, state downloading)', async () => {
    const url = serve('progress.gguf');
    server.hold('/files/progress.gguf', 1_000_000);
    const id = (await start({ url })).json<Download>().id;
    const midway = await until(() => get(id), { what: 'the download to reach the held byte', ok: (d) => d.bytes === 1_000_000 });
    expect(midway).to.include({ state: 'downloading', total: tinyGguf.length });
    expect(midway.progress).to.be.within(0.2, 0.3);
    expect(existsSync(path.join(modelsDir(), 'progress.gguf'))).to.equal(false);
    expect(await modelIds()).to.not.include('local/progress');
    server.release('/files/progress.gguf');
    expect((await settled(id, 'the download to finish')).state).to.equal('completed');
  });

  it('resumes with a Range request after the connection drops mid-body, and the file is whole', async () => {
    const url = serve('flaky.gguf');
    server.drops.set('/files/flaky.gguf', { afterBytes: 1_200_000, times: 2 });
    const id = (await start({ url, sha256: tinySha })).json<Download>().id;
    const done = await settled(id, 'the flaky download to finish');
    expect(done.state, JSON.stringify(done.error)).to.equal('completed');
    expect(done.attempts).to.equal(3);
    // Each retry asks for the bytes after those already on disk (the client may lose a few bytes in
    // flight when the connection breaks, so the offsets are at most, not exactly, the bytes sent).
    const ranges = server.requestsFor('/files/flaky.gguf').map((r) => r.range);
    expect(ranges[0]).to.equal(null);
    const offsets = ranges.slice(1).map((r) => Number(/^bytes=(\d+)-$/.exec(r ?? '')?.[1]));
    expect(offsets).to.have.length(2);
    expect(offsets[0]).to.be.within(1, 1_200_000);
    expect(offsets[1]! - offsets[0]!).to.be.within(1, 1_200_000);
    expect(server.requestsFor('/files/flaky.gguf')[1]!.ifRange, 'If-Range carries the ETag').to.match(/^"[0-9a-f]{40}"$/);
    expect(readFileSync(path.join(modelsDir(), 'flaky.gguf')).equals(tinyGguf)).to.equal(true);
  });

  it('refuses a file whose SHA-256 does not match: nothing appears, the partial file is gone', async () => {
    const url = serve('wrong-sum.gguf');
    const id = (await start({ url, sha256: 'a'.repeat(64) })).json<Download>().id;
    const done = await settled(id, 'the download to be refused');
    expect(done.state).to.equal('failed');
    expect(done.error!.reason_code).to.equal('checksum_mismatch');
    expect(done.error!.message).to.contain(tinySha);
    expect(readdirSync(modelsDir()).filter((f) => f.startsWith('wrong-sum'))).to.deep.equal([]);
    expect(await modelIds()).to.not.include('local/wrong-sum');
  });

  it('cancels a running download: its partial file is removed and it never appears', async () => {
    const url = serve('cancel-me.gguf');
    server.hold('/files/cancel-me.gguf', 500_000);
    const id = (await start({ url })).json<Download>().id;
    await until(() => get(id), { what: 'the download to start receiving', ok: (d) => d.bytes === 500_000 });
    expect(existsSync(path.join(modelsDir(), 'cancel-me.gguf.part'))).to.equal(true);
    const cancelled = await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${id}/cancel`, token: k.adminToken });
    expect(cancelled.statusCode, cancelled.body).to.equal(200);
    expect(cancelled.json<Download>().state).to.equal('cancelled');
    expect(existsSync(path.join(modelsDir(), 'cancel-me.gguf.part'))).to.equal(false);
    server.release('/files/cancel-me.gguf');
    const again = await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${id}/cancel`, token: k.adminToken });
    expect(again.statusCode).to.equal(409);
    expect(again.json<{ detail: { reason_code: string; message: string } }>().detail).to.deep.include({ reason_code: 'download_finished', message: `The download ${id} is cancelled; only a queued or running download can be cancelled.` });
    expect((await get(id)).state).to.equal('cancelled');
    expect(existsSync(path.join(modelsDir(), 'cancel-me.gguf'))).to.equal(false);
    expect(await modelIds()).to.not.include('local/cancel-me');
  });

  it('refuses a file that is not a model (an HTML page named .gguf), before it appears', async () => {
    const page = Buffer.from(`<!doctype html><html><body>${'Sign in to continue. '.repeat(5000)}</body></html>`);
    const url = serve('page.gguf', page, { contentType: 'text/html' });
    const id = (await start({ url })).json<Download>().id;
    const done = await settled(id, 'the download to be refused');
    expect(done.state).to.equal('failed');
    expect(done.error!.reason_code).to.equal('not_a_model');
    expect(done.error!.message).to.contain('GGUF magic');
    expect(done.bytes, 'refused at the head, not after the whole body').to.be.below(page.length);
    expect(readdirSync(modelsDir()).filter((f) => f.startsWith('page'))).to.deep.equal([]);
  });

  it('refuses names that are not model files, and URLs other than http(s)', async () => {
    for (const [payload, code, field] of [
      [{ url: serve('notes.txt', Buffer.from('hello')) }, 'unsupported_file', 'body.filename'],
      [{ url: serve('x.gguf'), filename: 'run.sh' }, 'unsupported_file', 'body.filename'],
      [{ url: serve('x.gguf'), filename: 'model.onnx' }, 'folder_required', 'body.folder'],
      [{ url: serve('x.gguf'), engine: 'onnx' }, 'engine_mismatch', 'body.engine'],
      [{ url: 'file:///etc/passwd' }, 'unsupported_url', 'body.url'],
      [{ url: 'ftp://127.0.0.1/model.gguf' }, 'unsupported_url', 'body.url'],
      [{ url: 'not a url' }, 'invalid_url', 'body.url'],
    ] as const) {
      const res = await start(payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(400);
      expect(res.json<{ detail: { reason_code: string; field: string } }>().detail, res.body).to.deep.include({ reason_code: code, field });
    }
  });

  it('refuses path traversal in filename and folder, and confines a name taken from the URL', async () => {
    const url = serve('x.gguf');
    for (const payload of [
      { url, filename: '../evil.gguf' },
      { url, filename: '..\\evil.gguf' },
      { url, filename: 'sub/evil.gguf' },
      { url, filename: '/tmp/evil.gguf' },
      { url, filename: '.hidden.gguf' },
      { url, filename: 'evil\u0000.gguf' },
      { url, filename: 'x.gguf', folder: '..' },
      { url, filename: 'x.gguf', folder: 'a/../../b' },
    ]) {
      const res = await start(payload);
      expect(res.statusCode, JSON.stringify(payload)).to.equal(400);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code, res.body).to.equal('invalid_filename');
    }
    // An encoded traversal in the URL's path becomes a plain name inside the models folder.
    server.files.set('/files/../evil.gguf', { body: tinyGguf });
    const res = await start({ url: `${server.url}/files/..%2F..%2Fevil.gguf` });
    expect(res.statusCode, res.body).to.equal(202);
    expect(res.json<Download>().file).to.equal('evil.gguf');
    await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${res.json<Download>().id}/cancel`, token: k.adminToken });
    expect(existsSync(path.join(k.dataDir, 'evil.gguf'))).to.equal(false);
    expect(existsSync(path.join(path.dirname(k.dataDir), 'evil.gguf'))).to.equal(false);
  });

  it('refuses a folder that a symbolic link leads out of the models folder, and writes nothing there', async () => {
    const outside = tempDir('keel-engines-outside-');
    try {
      writeFileSync(path.join(outside.dir, 'linked.gguf.part'), 'not ours');
      mkdirSync(modelsDir(), { recursive: true });
      symlinkSync(outside.dir, path.join(modelsDir(), 'linked'));
      const res = await start({ url: serve('linked.gguf'), folder: 'linked' });
      expect(res.statusCode, res.body).to.equal(202);
      const done = await settled(res.json<Download>().id, 'the download to be refused');
      expect(done.state).to.equal('failed');
      expect(done.error!.reason_code).to.equal('outside_models_folder');
      expect(readdirSync(outside.dir)).to.deep.equal(['linked.gguf.part']);
      expect(readFileSync(path.join(outside.dir, 'linked.gguf.part'), 'utf8')).to.equal('not ours');
    } finally {
      outside.remove();
    }
  });

  it('refuses a second download of a model the folder already holds, or one already running', async () => {
    const exists = await start({ url: serve('first-model.gguf') });
    expect(exists.statusCode).to.equal(409);
    expect(exists.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('model_exists');
    const url = serve('twice.gguf');
    server.hold('/files/twice.gguf', 100_000);
    const first = (await start({ url })).json<Download>();
    const second = await start({ url });
    expect(second.statusCode).to.equal(409);
    expect(second.json<{ detail: { reason_code: string; message: string } }>().detail.reason_code).to.equal('download_in_progress');
    expect(second.json<{ detail: { message: string } }>().detail.message).to.contain(first.id);
    await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${first.id}/cancel`, token: k.adminToken });
    server.release('/files/twice.gguf');
    // Two requests at the same moment for the same file: one is taken, the other refused.
    const racing = serve('race.gguf');
    server.hold('/files/race.gguf', 100_000);
    const both = await Promise.all([start({ url: racing }), start({ url: racing })]);
    expect(both.map((r) => r.statusCode).sort()).to.deep.equal([202, 409]);
    await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${both.find((r) => r.statusCode === 202)!.json<Download>().id}/cancel`, token: k.adminToken });
    server.release('/files/race.gguf');
  });

  it('is admin-only: another account gets 403 on every download route, no token 401', async () => {
    const id = (await k.inject({ url: '/api/gateway/models/downloads', token: k.adminToken })).json<{ items: Download[] }>().items[0]!.id;
    const calls = [
      { method: 'POST', url: '/api/gateway/models/download', payload: { url: serve('alice.gguf') } },
      { method: 'GET', url: '/api/gateway/models/downloads' },
      { method: 'GET', url: `/api/gateway/models/downloads/${id}` },
      { method: 'POST', url: `/api/gateway/models/downloads/${id}/cancel` },
    ];
    for (const call of calls) {
      const res = await k.inject({ ...call, token: alice });
      expect(res.statusCode, `${call.method} ${call.url}`).to.equal(403);
      expect(res.json<{ detail: unknown }>().detail).to.be.a('string');
      expect((await k.inject(call)).statusCode, `${call.method} ${call.url} without a token`).to.equal(401);
    }
    expect(server.requestsFor('/files/alice.gguf')).to.deep.equal([]);
  });

  it('answers 404 for an unknown download and publishes the routes in /openapi.json', async () => {
    const res = await k.inject({ url: '/api/gateway/models/downloads/dl_nope', token: k.adminToken });
    expect(res.statusCode).to.equal(404);
    expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('download_not_found');
    const doc = (await k.inject({ url: '/openapi.json', token: k.adminToken })).json<{ paths: Record<string, unknown> }>();
    for (const p of ['/api/gateway/models/download', '/api/gateway/models/downloads', '/api/gateway/models/downloads/{id}', '/api/gateway/models/downloads/{id}/cancel']) {
      expect(doc.paths, p).to.have.property(p);
    }
  });
});

describe('engines: a model download resumes after a kernel restart', function () {
  it('continues from the .part file with a Range request when the kernel starts again', async () => {
    const server = await new ModelFileServer().start();
    const data = tempDir('keel-engines-');
    let k: TestKernel | null = null;
    try {
      server.files.set('/m/restart.gguf', { body: tinyGguf });
      server.hold('/m/restart.gguf', 1_500_000);
      k = await createTestKernel({ plugins: [plugin], dataDir: data.dir });
      const kernel = k;
      const id = (await k.inject({ method: 'POST', url: '/api/gateway/models/download', token: k.adminToken, payload: { url: `${server.url}/m/restart.gguf`, sha256: tinySha } })).json<Download>().id;
      await until(async () => (await kernel.inject({ url: `/api/gateway/models/downloads/${id}`, token: kernel.adminToken })).json<Download>(), {
        what: 'the download to reach the held byte',
        ok: (d) => d.bytes === 1_500_000,
      });
      await k.stop();
      const partFile = path.join(data.dir, 'models', 'restart.gguf.part');
      expect(readFileSync(partFile).length).to.equal(1_500_000);
      server.release('/m/restart.gguf');

      k = await createTestKernel({ plugins: [plugin], dataDir: data.dir });
      const again = k;
      const done = await until(async () => (await again.inject({ url: `/api/gateway/models/downloads/${id}`, token: again.adminToken })).json<Download>(), {
        what: 'the download to finish after the restart',
        ok: (d) => d.state === 'completed' || d.state === 'failed',
        deadline: 60_000,
      });
      expect(done.state, JSON.stringify(done.error)).to.equal('completed');
      expect(server.requestsFor('/m/restart.gguf').map((r) => r.range)).to.deep.equal([null, 'bytes=1500000-']);
      expect(readFileSync(path.join(data.dir, 'models', 'restart.gguf')).equals(tinyGguf)).to.equal(true);
      const models = (await k.inject({ url: '/v1/models', token: k.adminToken })).json<{ data: Array<{ id: string }> }>().data.map((m) => m.id);
      expect(models).to.include('local/restart');
    } finally {
      await k?.stop();
      await server.close();
      data.remove();
    }
  });
});
