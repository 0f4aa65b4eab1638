import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { createAccount } from './helpers/accounts.js';
import { ModelFileServer } from './helpers/model-file-server.js';
import { repoRoot } from './helpers/paths.js';
import { embeddingsDir, requireGloveModel, TINY_CHAT } from './helpers/shared-models.js';
import { until } from './helpers/until.js';

// The local engines through the HTTP API: what exists, its state, load and unload of a model
// (admin), and a downloaded ONNX model folder becoming an embedding model of the onnx engine.
const tinyGguf = readFileSync(path.join(repoRoot, 'models', 'keel-tiny-chat', 'keel-tiny-chat.gguf'));

interface EngineView {
  engine: string;
  label: string;
  available: boolean;
  unavailable_reason: string | null;
  formats: string[];
  residency: boolean;
  workers: { max: number; live: number; queued: number };
  loaded: string[] | null;
  models: Array<{ id: string; state: string; context_length: number | null }>;
}
interface Download {
  id: string;
  state: string;
  file: string;
  error: { reason_code: string; message: string } | null;
}

describe('engines: local engine routes', function () {
  let k: TestKernel;
  let server: ModelFileServer;
  let alice: string;

  before(async () => {
    server = await new ModelFileServer().start();
    k = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { defaultChatModel: TINY_CHAT, defaultEmbeddingModel: TINY_CHAT } }] });
    alice = await createAccount(k, 'alice');
  });
  after(async () => {
    await k?.stop();
    await server?.close();
  });

  const engine = async (name: string, token = alice) => (await k.inject({ url: `/api/gateway/engines/${name}`, token })).json<EngineView>();
  const residency = (name: string, action: string, model: string, token = k.adminToken) =>
    k.inject({ method: 'POST', url: `/api/gateway/engines/${name}/${action}`, token, payload: { model } });
  const download = async (payload: Record<string, unknown>) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/models/download', token: k.adminToken, payload });
    expect(res.statusCode, res.body).to.equal(202);
    const id = res.json<Download>().id;
    return until(async () => (await k.inject({ url: `/api/gateway/models/downloads/${id}`, token: k.adminToken })).json<Download>(), {
      what: `download of ${String(payload.filename)} to finish`,
      ok: (d) => ['completed', 'failed', 'cancelled'].includes(d.state),
      deadline: 60_000,
    });
  };

  it('lists llama.cpp and onnx with their availability, workers and models, to any signed-in caller, without file paths', async () => {
    const res = await k.inject({ url: '/api/gateway/engines', token: alice });
    expect(res.statusCode).to.equal(200);
    const engines = res.json<{ engines: EngineView[] }>().engines;
    expect(engines.map((e) => e.engine)).to.deep.equal(['llama', 'onnx']);
    const [llama, onnx] = engines;
    expect(llama).to.deep.include({ label: 'llama.cpp', available: true, unavailable_reason: null, formats: ['gguf'], residency: true });
    expect(llama!.models.find((m) => m.id === TINY_CHAT)).to.deep.include({ state: 'available', context_length: 512 });
    expect(onnx).to.deep.include({ available: true, formats: ['onnx'], residency: false, loaded: null });
    expect(res.body).to.not.contain(repoRoot);
    expect(res.body).to.not.contain(k.dataDir);
    expect((await k.inject({ url: '/api/gateway/engines' })).statusCode).to.equal(401);
    const unknown = await k.inject({ url: '/api/gateway/engines/tensorrt', token: alice });
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<{ detail: { reason_code: string; message: string } }>().detail).to.deep.include({
      reason_code: 'engine_not_found',
      message: "The engine 'tensorrt' does not exist; engines are llama, onnx.",
    });
  });

  it('loads and unloads a model (admin); the engine view shows it loaded, then available', async () => {
    const loaded = await residency('llama', 'load', TINY_CHAT);
    expect(loaded.statusCode, loaded.body).to.equal(200);
    expect(loaded.json()).to.deep.equal({ engine: 'llama', model: TINY_CHAT, action: 'load', changed: true, loaded: [TINY_CHAT] });
    const view = await engine('llama');
    expect(view.loaded).to.deep.equal([TINY_CHAT]);
    expect(view.workers.live).to.be.at.least(1);
    expect(view.models.find((m) => m.id === TINY_CHAT)!.state).to.equal('loaded');
    expect((await residency('llama', 'load', 'keel-tiny-chat')).json<{ changed: boolean }>().changed, 'already open').to.equal(false);
    const unloaded = await residency('llama', 'unload', TINY_CHAT);
    expect(unloaded.json()).to.deep.include({ action: 'unload', changed: true, loaded: [] });
    expect((await engine('llama')).models.find((m) => m.id === TINY_CHAT)!.state).to.equal('available');
  });

  it('refuses load and unload to a non-admin (403), an unknown model (404), a remote model and the onnx engine (400)', async () => {
    for (const action of ['load', 'unload']) {
      const res = await residency('llama', action, TINY_CHAT, alice);
      expect(res.statusCode).to.equal(403);
      expect(res.json<{ detail: unknown }>().detail).to.be.a('string');
    }
    expect((await residency('llama', 'load', 'local/no-such-model')).statusCode).to.equal(404);
    const remote = await residency('llama', 'load', 'openai/gpt-5-mini');
    expect(remote.statusCode).to.equal(400);
    expect(remote.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('model_not_local');
    const onnx = await residency('onnx', 'load', TINY_CHAT);
    expect(onnx.statusCode).to.equal(400);
    expect(onnx.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('residency_unsupported');
    expect((await residency('nope', 'load', TINY_CHAT)).statusCode).to.equal(404);
  });

  it('shows a model being downloaded as downloading in its engine', async () => {
    server.files.set('/m/incoming.gguf', { body: tinyGguf });
    server.hold('/m/incoming.gguf', 200_000);
    const res = await k.inject({ method: 'POST', url: '/api/gateway/models/download', token: k.adminToken, payload: { url: `${server.url}/m/incoming.gguf` } });
    const id = res.json<Download>().id;
    const view = await until(() => engine('llama'), { what: 'the download to show in the llama engine', ok: (v) => v.models.some((m) => m.id === 'local/incoming') });
    expect(view.models.find((m) => m.id === 'local/incoming')!.state).to.equal('downloading');
    await k.inject({ method: 'POST', url: `/api/gateway/models/downloads/${id}/cancel`, token: k.adminToken });
    server.release('/m/incoming.gguf');
    expect((await engine('llama')).models.some((m) => m.id === 'local/incoming')).to.equal(false);
  });

  it('refuses an .onnx download that is not ONNX, and a JSON companion that is not JSON', async () => {
    server.files.set('/m/fake.onnx', { body: tinyGguf });
    const fake = await download({ url: `${server.url}/m/fake.onnx`, folder: 'fake-onnx', filename: 'model.onnx' });
    expect(fake.state).to.equal('failed');
    expect(fake.error!.reason_code).to.equal('not_a_model');
    server.files.set('/m/config.json', { body: Buffer.from('<html>not json</html>') });
    const json = await download({ url: `${server.url}/m/config.json`, folder: 'fake-onnx', filename: 'config.json' });
    expect(json.state).to.equal('failed');
    expect(json.error!.reason_code).to.equal('not_a_model');
  });

  it('downloads an ONNX model folder (weights, config, tokenizer); the onnx engine lists it and it embeds', async function () {
    requireGloveModel(this);
    const glove = path.join(embeddingsDir, 'glove-sif-50d');
    for (const [file, local] of [['config.json', 'config.json'], ['tokenizer.json', 'tokenizer.json'], ['tokenizer_config.json', 'tokenizer_config.json'], ['model.onnx', 'onnx/model.onnx']] as const) {
      server.files.set(`/glove/${file}`, { body: readFileSync(path.join(glove, local)) });
      const done = await download({ url: `${server.url}/glove/${file}`, folder: 'glove-copy', engine: 'onnx' });
      expect(done.state, JSON.stringify(done.error)).to.equal('completed');
      expect(done.file).to.equal(file === 'model.onnx' ? 'glove-copy/onnx/model.onnx' : `glove-copy/${file}`);
    }
    expect((await engine('onnx')).models.find((m) => m.id === 'local/glove-copy')).to.deep.include({ state: 'available' });
    const models = (await k.inject({ url: '/v1/models', token: alice })).json<{ data: Array<{ id: string }> }>().data.map((m) => m.id);
    expect(models).to.include('local/glove-copy');
    const embedded = await k.inject({ method: 'POST', url: '/v1/embeddings', token: alice, payload: { model: 'local/glove-copy', input: 'a small boat on the sea' } });
    expect(embedded.statusCode, embedded.body).to.equal(200);
    expect(embedded.json<{ data: Array<{ embedding: number[] }> }>().data[0]!.embedding).to.have.length(50);
  });

  it('publishes the engine routes in /openapi.json', async () => {
    const doc = (await k.inject({ url: '/openapi.json', token: k.adminToken })).json<{ paths: Record<string, unknown> }>();
    for (const p of ['/api/gateway/engines', '/api/gateway/engines/{engine}', '/api/gateway/engines/{engine}/load', '/api/gateway/engines/{engine}/unload']) expect(doc.paths, p).to.have.property(p);
  });
});
