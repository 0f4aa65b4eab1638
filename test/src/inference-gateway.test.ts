import { expect } from 'chai';
import OpenAI from 'openai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { embeddingsDir, requireSharedModels, storiesDir, TINY_CHAT } from './helpers/shared-models.js';

// The rules run on the project's own tiny chat model; the real models of ../shared/models are listed
// too when that folder is there (one test checks them and skips, saying so, when it is absent).
const config = { modelsDirs: [storiesDir, embeddingsDir], defaultChatModel: TINY_CHAT, defaultEmbeddingModel: TINY_CHAT };

describe('inference: discovery, endpoint profiles, admin switches (two kernels)', function () {
  let a: TestKernel;
  let b: TestKernel;
  let aUrl: string;
  let bUrl: string;
  let alice: string;

  before(async function () {
    a = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config: { ...config, models: [{ id: 'ghost', path: '/nowhere/ghost.gguf' }], defaultEmbeddingModel: 'local/ghost' } }] });
    b = await createTestKernel({ plugins: [{ plugin: inferencePlugin, config }] });
    aUrl = (await a.listen()).url;
    bUrl = (await b.listen()).url;
    const created = await a.inject({ method: 'POST', url: '/api/gateway/admin/users', token: a.adminToken, payload: { account: 'alice' } });
    alice = created.json<{ token: { token: string } }>().token.token;
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  const call = (method: string, url: string, token: string, payload?: unknown) => a.inject({ method, url, token, payload });

  it('lists providers, a provider\'s models and the capabilities with the streaming block', async () => {
    const providers = await call('GET', '/api/gateway/discovery/providers', alice);
    expect(providers.statusCode).to.equal(200);
    expect(providers.json<{ providers: Array<{ name: string }> }>().providers.map((p) => p.name)).to.deep.equal(['local']);
    const models = await call('GET', '/api/gateway/discovery/providers/local/models', alice);
    const body = models.json<{ provider: string; source: string; models: Array<{ id: string; kinds: string[]; context_length: number | null }> }>();
    expect(body).to.include({ provider: 'local', source: 'local_folder' });
    expect(body.models.find((m) => m.id === TINY_CHAT)).to.deep.include({ kinds: ['chat', 'embedding'], context_length: 512 });
    expect((await call('GET', '/api/gateway/discovery/providers/nope/models', alice)).statusCode).to.equal(404);
    const caps = await call('GET', '/api/gateway/discovery/capabilities', alice);
    const streaming = caps.json<{ streaming: Record<string, unknown> }>().streaming;
    expect(Object.keys(streaming).sort()).to.deep.equal(['default', 'deltas', 'end_reasons', 'endpoint', 'events', 'run_field', 'subtree']);
    expect(streaming.end_reasons).to.deep.equal(['completed', 'failed', 'cancelled', 'unavailable']);
    expect((await a.inject({ url: '/api/gateway/discovery/providers' })).statusCode).to.equal(401);
  });

  it('lists the real models of ../shared/models with their kinds', async function () {
    requireSharedModels(this);
    const models = (await call('GET', '/api/gateway/discovery/providers/local/models', alice)).json<{ models: Array<{ id: string; kinds: string[]; context_length: number | null }> }>().models;
    expect(models.find((m) => m.id === 'local/stories260K')).to.deep.include({ kinds: ['chat', 'embedding'], context_length: 512 });
    expect(models.find((m) => m.id === 'local/glove-sif-50d')!.kinds).to.deep.equal(['embedding']);
  });

  describe('a provider endpoint profile pointing at a second Keel kernel', () => {
    let profileId: string;
    const profiles = '/api/gateway/config/provider-endpoint-profiles';

    it('is created per account, and its key is never returned', async () => {
      const created = await call('POST', profiles, alice, { name: 'peer', base_url: `${bUrl}/v1`, api_key: b.adminToken, kind: 'compatible' });
      expect(created.statusCode).to.equal(201);
      const view = created.json<{ profile_id: string; provider: string; has_api_key: boolean; enabled: boolean }>();
      expect(view).to.include({ provider: 'endpoint:peer', has_api_key: true, enabled: true });
      profileId = view.profile_id;
      for (const res of [created, await call('GET', profiles, alice)]) expect(res.body).to.not.contain(b.adminToken);
      expect((await call('GET', profiles, a.adminToken)).json<{ items: unknown[] }>().items).to.deep.equal([]);
      expect((await call('POST', profiles, alice, { name: 'peer', base_url: `${bUrl}/v1` })).statusCode).to.equal(409);
      const bad = await call('POST', profiles, alice, { name: 'x', base_url: 'ftp://nope' });
      expect(bad.statusCode).to.equal(400);
      expect(bad.json<{ detail: { field: string } }>().detail.field).to.equal('body.base_url');
    });

    it('appears as the virtual provider endpoint:<name> with the live catalog of the other kernel', async () => {
      const providers = (await call('GET', '/api/gateway/discovery/providers', alice)).json<{ providers: Array<{ name: string; kind: string; catalog: string }> }>().providers;
      expect(providers.find((p) => p.name === 'endpoint:peer')).to.include({ kind: 'endpoint', catalog: 'live_catalog' });
      const models = (await call('GET', '/api/gateway/discovery/providers/endpoint:peer/models', alice)).json<{ source: string; models: Array<{ id: string }> }>();
      expect(models.source).to.equal('live_catalog');
      expect(models.models.map((m) => m.id)).to.include(`endpoint:peer/${TINY_CHAT}`);
      const discovered = await call('POST', `${profiles}/discover-models`, alice, { profile_id: profileId });
      expect(discovered.json<{ models: Array<{ id: string }> }>().models.map((m) => m.id)).to.include(TINY_CHAT);
      const draft = await call('POST', `${profiles}/discover-models`, alice, { base_url: `${bUrl}/v1`, api_key: 'keel_wrong' });
      expect(draft.statusCode).to.equal(502);
      expect(draft.json<{ detail: { message: string } }>().detail.message).to.contain('refused');
    });

    it('serves chat and streaming through the profile, equal to the other kernel\'s own answer', async () => {
      const viaA = new OpenAI({ apiKey: alice, baseURL: `${aUrl}/v1`, maxRetries: 0 });
      const direct = new OpenAI({ apiKey: b.adminToken, baseURL: `${bUrl}/v1`, maxRetries: 0 });
      const request = { messages: [{ role: 'user' as const, content: 'A story about a frog.' }], max_tokens: 16, temperature: 0 };
      const relayed = await viaA.chat.completions.create({ ...request, model: `endpoint:peer/${TINY_CHAT}` });
      const own = await direct.chat.completions.create({ ...request, model: TINY_CHAT });
      expect(relayed.choices[0]!.message.content).to.equal(own.choices[0]!.message.content);
      const stream = await viaA.chat.completions.create({ ...request, model: `endpoint:peer/${TINY_CHAT}`, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).to.equal(own.choices[0]!.message.content);
      const emb = await viaA.embeddings.create({ model: `endpoint:peer/${TINY_CHAT}`, input: 'rain tomorrow' });
      const ownEmb = await direct.embeddings.create({ model: TINY_CHAT, input: 'rain tomorrow' });
      expect(emb.data[0]!.embedding).to.have.length(128).and.deep.equal(ownEmb.data[0]!.embedding);
      // Other accounts do not see alice's profile.
      const asAdmin = new OpenAI({ apiKey: a.adminToken, baseURL: `${aUrl}/v1`, maxRetries: 0 });
      const err = await asAdmin.chat.completions.create({ ...request, model: `endpoint:peer/${TINY_CHAT}` }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(OpenAI.NotFoundError);
    });

    it('is updated (a disabled profile disappears) and deleted', async () => {
      const off = await call('PUT', `${profiles}/${profileId}`, alice, { enabled: false, models: [TINY_CHAT] });
      expect(off.statusCode).to.equal(200);
      expect(off.json()).to.deep.include({ enabled: false, has_api_key: true, models: [TINY_CHAT] });
      const names = (await call('GET', '/api/gateway/discovery/providers', alice)).json<{ providers: Array<{ name: string }> }>().providers.map((p) => p.name);
      expect(names).to.not.include('endpoint:peer');
      const keyRemoved = await call('PUT', `${profiles}/${profileId}`, alice, { api_key: null, enabled: true });
      expect(keyRemoved.json()).to.deep.include({ has_api_key: false });
      const allow = (await call('GET', '/api/gateway/discovery/providers/endpoint:peer/models', alice)).json<{ source: string; models: Array<{ id: string }> }>();
      expect(allow).to.deep.include({ source: 'allowlist' });
      expect((await call('DELETE', `${profiles}/${profileId}`, alice)).statusCode).to.equal(204);
      expect((await call('DELETE', `${profiles}/${profileId}`, alice)).statusCode).to.equal(404);
      expect((await call('PUT', `${profiles}/${profileId}`, alice, { enabled: true })).statusCode).to.equal(404);
    });
  });

  it('names the path and how to get a model when a configured model file is missing', async () => {
    const res = await a.inject({ method: 'POST', url: '/v1/chat/completions', token: alice, payload: { model: 'local/ghost', messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.statusCode).to.equal(503);
    const error = res.json<{ error: { message: string; code: string } }>().error;
    expect(error.code).to.equal('model_file_missing');
    expect(error.message).to.contain('/nowhere/ghost.gguf').and.contain('node-llama-cpp pull');
  });

  it('reports status, keeps a request log without content or secrets, and lets an admin switch the API off and on', async () => {
    const status = await call('GET', '/api/gateway/openai-api', alice);
    expect(status.json()).to.deep.include({ enabled: true, base_path: '/v1', legacy_base_path: '/core/v1', default_chat_model: TINY_CHAT });
    const logs = await call('GET', '/api/gateway/openai-api/logs?limit=50', alice);
    const items = logs.json<{ items: Array<{ account: string; endpoint: string }> }>().items;
    expect(items.length).to.be.greaterThan(0);
    expect(items.every((i) => i.account === 'alice')).to.equal(true);
    expect(logs.body).to.not.contain('frog').and.not.contain(b.adminToken).and.not.contain(alice);

    expect((await call('POST', '/api/gateway/admin/core-endpoint/disable', alice)).statusCode).to.equal(403);
    const off = await call('POST', '/api/gateway/admin/core-endpoint/disable', a.adminToken);
    expect(off.json()).to.deep.include({ enabled: false, updated_by: 'admin' });
    const refused = await a.inject({ method: 'POST', url: '/v1/chat/completions', token: alice, payload: { model: TINY_CHAT, messages: [{ role: 'user', content: 'hi' }] } });
    expect(refused.statusCode).to.equal(503);
    expect(refused.json<{ error: { code: string; message: string } }>().error).to.include({ code: 'api_disabled' });
    await call('POST', '/api/gateway/admin/core-endpoint/enable', a.adminToken);

    // The configured default embedder is the missing ghost, until an admin switches it.
    const before = await a.inject({ method: 'POST', url: '/v1/embeddings', token: alice, payload: { model: 'default', input: 'x' } });
    expect(before.json<{ error: { code: string } }>().error.code).to.equal('model_file_missing');
    const unknown = await call('PUT', '/api/gateway/admin/core-endpoint/defaults', a.adminToken, { chat_model: 'local/nothing' });
    expect(unknown.statusCode).to.equal(404);
    const set = await call('PUT', '/api/gateway/admin/core-endpoint/defaults', a.adminToken, { embedding_model: TINY_CHAT });
    expect(set.json()).to.deep.include({ default_embedding_model: TINY_CHAT });
    const viaDefault = await a.inject({ method: 'POST', url: '/v1/embeddings', token: alice, payload: { model: 'default', input: 'x' } });
    expect(viaDefault.json<{ data: Array<{ embedding: number[] }> }>().data[0]!.embedding).to.have.length(128);
  });
});
