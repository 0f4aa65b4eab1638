import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { inferencePlugin } from '@keel/plugin-inference';
import { embeddingsDir, requireGloveModel, TINY_CHAT } from './helpers/shared-models.js';
import { until } from './helpers/until.js';

// Semantic search (reference §8.6) through HTTP: the embedding setting, fusion with keyword search,
// drift and rebuild, on the real glove-sif-50d embedder served by the inference plugin.

interface Res {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}
type Hit = { kind: string; ref: string; channel: string };
const SECTIONS = ['decisions', 'open_threads', 'work', 'people', 'files', 'messages'] as const;

function harness(get: () => TestKernel) {
  const keys: Record<string, string> = {};
  async function call(method: string, url: string, token: string, payload?: unknown): Promise<Res> {
    const res = await get().inject({ method, url, token, payload });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : null };
  }
  async function ok(method: string, url: string, token: string, payload?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await call(method, url, token, payload);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body;
  }
  async function register(id: string, operator = false): Promise<string> {
    return (keys[id] = (await ok('POST', '/hub/agents', get().adminToken, { id, operator })).api_key);
  }
  const hits = (report: any): Hit[] => SECTIONS.flatMap((s) => report[s].hits as Hit[]); // eslint-disable-line @typescript-eslint/no-explicit-any
  return { keys, call, ok, register, hits };
}

describe('hub semantic search without the inference plugin', function () {
  this.timeout(60_000);
  let k: TestKernel;
  const h = harness(() => k);

  before(async () => {
    k = await createTestKernel({ plugins: [hubPlugin] });
    await h.register('alice');
    await h.ok('POST', '/hub/channels/commons/messages', h.keys.alice!, { body: 'the deploy finished' });
  });
  after(() => k?.stop());

  it('reports the setting unavailable with the reason, and refuses to choose a model', async () => {
    const status = await h.ok('GET', '/hub/admin/embedding', k.adminToken);
    expect(status).to.include({ state: 'unavailable', available: false, model: null });
    expect(status.reason).to.contain('inference plugin (@keel/plugin-inference) is not loaded');
    const put = await h.call('PUT', '/hub/admin/embedding', k.adminToken, { model: 'default' });
    expect(put.status).to.equal(409);
    expect(put.body.detail).to.match(/^semantic search is unavailable: the inference plugin/);
  });

  it('keeps keyword search exactly as it was, and says why an explicit semantic search is keyword-only', async () => {
    const auto = await h.ok('GET', '/hub/search?q=deploy', h.keys.alice!);
    expect(auto).to.include({ mode_used: 'lexical', semantic_coverage: null, notice: null });
    expect(auto.messages.hits.map((x: Hit) => x.kind)).to.deep.equal(['message']);
    const semantic = await h.ok('GET', '/hub/search?q=deploy&mode=semantic', h.keys.alice!);
    expect(semantic.mode_used).to.equal('lexical');
    expect(semantic.notice).to.contain('semantic search is unavailable on this hub');
    expect(semantic.messages.total).to.equal(1);
    const bad = await h.call('GET', '/hub/search?q=deploy&mode=vector', h.keys.alice!);
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.equal("mode must be 'lexical' or 'semantic' (unset = auto: the hub fuses when its semantic index is ready)");
  });

  it('keeps the operator routes to operators, with the reference sentences', async () => {
    const bob = await h.register('bob');
    expect((await h.call('GET', '/hub/admin/embedding', bob)).body.detail).to.equal('embedding status is an operator surface');
    expect((await h.call('PUT', '/hub/admin/embedding', bob, { model: 'default' })).body.detail).to.equal('embedding config is an operator act');
    expect((await h.call('GET', '/hub/admin/search/drift', bob)).body.detail).to.equal('search drift is an operator view');
    const rebuild = await h.call('POST', '/hub/admin/search/rebuild', bob);
    expect(rebuild.status).to.equal(403);
    expect(rebuild.body.detail).to.equal('search rebuild is an operator act');
    expect((await h.call('GET', '/hub/admin/embedding', '')).status).to.equal(401);
  });
});

describe('hub semantic search with the inference plugin (real glove-sif-50d embedder)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const h = harness(() => k);
  const GLOVE = 'local/glove-sif-50d';
  let rain: string;
  let secret: string;

  const status = () => h.ok('GET', '/hub/admin/embedding', k.adminToken);
  const drift = () => h.ok('GET', '/hub/admin/search/drift', k.adminToken);
  const ready = () => until(status, { what: 'the embedding state to be ready', ok: (s) => s.state === 'ready', deadline: 120_000, every: 100 });

  before(async function () {
    requireGloveModel(this);
    k = await createTestKernel({
      plugins: [
        { plugin: inferencePlugin, config: { modelsDirs: [embeddingsDir], defaultChatModel: TINY_CHAT, defaultEmbeddingModel: GLOVE } },
        hubPlugin,
      ],
    });
    await h.register('alice');
    await h.register('bob');
    await h.register('carol');
    await h.ok('POST', '/hub/channels', h.keys.alice!, { name: 'plaza', private: false });
    await h.ok('POST', '/hub/channels/plaza/join', h.keys.bob!, {});
    await h.ok('POST', '/hub/channels', h.keys.alice!, { name: 'vault', private: true });
    for (const body of ['The bank raised interest rates again.', 'He plays the guitar in a band.', 'Stock markets fell sharply today.']) {
      await h.ok('POST', '/hub/channels/plaza/messages', h.keys.alice!, { body });
    }
    rain = (await h.ok('POST', '/hub/channels/plaza/messages', h.keys.bob!, { body: 'It will rain all day, cold and wet.' })).id;
    // Close in meaning to the query too, but in a private room only alice is in.
    secret = (await h.ok('POST', '/hub/channels/vault/messages', h.keys.alice!, { body: 'Heavy rain and strong wind are coming tonight.' })).id;
    await h.ok('PUT', '/hub/channels/plaza/fs/notes/picnic.md', h.keys.alice!, { content: 'If the sky is grey and it rains we move the picnic inside.' });
  });
  after(() => k?.stop());

  it('starts disabled: search is keyword search, unchanged', async () => {
    expect(await status()).to.include({ state: 'disabled', available: true, model: null });
    const report = await h.ok('GET', '/hub/search?q=storm+clouds', h.keys.bob!);
    expect(report).to.include({ mode_used: 'lexical', semantic_coverage: null, notice: null });
    expect(h.hits(report)).to.deep.equal([]);
  });

  it('refuses a model the inference plugin does not serve, naming the probe failure', async () => {
    // A model the inference plugin does not know is the caller's mistake: 400 (a model that fails to run would be 502).
    const res = await h.call('PUT', '/hub/admin/embedding', k.adminToken, { model: 'local/no-such-model' });
    expect(res.status).to.equal(400);
    expect(res.body.detail).to.match(/^embedding model refused the probe: .*no-such-model/);
    const url = await h.call('PUT', '/hub/admin/embedding', k.adminToken, { model: GLOVE, url: 'http://127.0.0.1:1234/v1' });
    expect(url.status).to.equal(400);
    expect(url.body.detail).to.contain('embeds through the inference plugin');
  });

  it('turned on, ranks a message that matches by meaning but not by keyword', async () => {
    const put = await h.ok('PUT', '/hub/admin/embedding', k.adminToken, { model: 'default' });
    expect(put).to.deep.include({ changed: true, model: 'default', probe: { ok: true, dim: 50 } });
    const s = await ready();
    expect(s).to.include({ resolved_model: GLOVE, coverage: 1, last_error: null });

    const lexical = await h.ok('GET', '/hub/search?q=storm+clouds&mode=lexical', h.keys.bob!);
    expect(h.hits(lexical)).to.deep.equal([]);
    const fused = await h.ok('GET', '/hub/search?q=storm+clouds', h.keys.bob!);
    expect(fused).to.include({ mode_used: 'fused', semantic_coverage: 1, notice: null });
    expect(fused.messages.hits[0].ref).to.equal(rain);
    const semantic = await h.ok('GET', '/hub/search?q=storm+clouds&mode=semantic&kind=message', h.keys.bob!);
    expect(semantic.mode_used).to.equal('semantic');
    expect(semantic.messages.hits[0].ref).to.equal(rain);
    expect(semantic.files.hits).to.deep.equal([]);
    const files = await h.ok('GET', '/hub/search?q=bad+weather&mode=semantic&kind=file', h.keys.bob!);
    expect(files.files.hits[0].ref).to.equal('notes/picnic.md');
    // A keyword match still comes first for a query that has one.
    const keyword = await h.ok('GET', '/hub/search?q=guitar', h.keys.bob!);
    expect(keyword.messages.hits[0].ref).to.not.equal(rain);
    expect(keyword.mode_used).to.equal('fused');
  });

  it('never shows a seat a message from a channel it cannot read', async () => {
    for (const who of ['bob', 'carol']) {
      for (const qs of ['q=rain+wind+tonight', 'q=rain+wind+tonight&mode=semantic', 'q=weather&mode=semantic&channel=vault', 'q=rain&mode=semantic&limit=50&kind=message']) {
        const report = await h.ok('GET', `/hub/search?${qs}`, h.keys[who]!);
        expect(h.hits(report).map((x) => x.channel), `${who} ${qs}`).to.not.include('vault');
        expect(h.hits(report).map((x) => x.ref), `${who} ${qs}`).to.not.include(secret);
      }
    }
    const alice = await h.ok('GET', '/hub/search?q=storm+tonight&mode=semantic&kind=message', h.keys.alice!);
    expect(alice.messages.hits.map((x: Hit) => x.ref)).to.include(secret);
  });

  it('drops a retracted message from meaning results', async () => {
    const gone = (await h.ok('POST', '/hub/channels/plaza/messages', h.keys.bob!, { body: 'Snow and ice will freeze the roads this winter.' })).id;
    await until(drift, { what: 'the new message to be embedded', ok: (d) => d.vectors.missing === 0 && d.vectors.stale === 0, deadline: 60_000, every: 100 });
    const found = await h.ok('GET', '/hub/search?q=cold+weather&mode=semantic&kind=message&limit=50', h.keys.alice!);
    expect(found.messages.hits.map((x: Hit) => x.ref)).to.include(gone);
    await h.ok('POST', `/hub/channels/plaza/messages/${gone}/retract`, h.keys.bob!, {});
    const after = await h.ok('GET', '/hub/search?q=cold+weather&mode=semantic&kind=message&limit=50', h.keys.alice!);
    expect(after.messages.hits.map((x: Hit) => x.ref)).to.not.include(gone);
  });

  it('reports drift after the model setting changes, and a rebuild re-embeds with the new model', async () => {
    const before = await until(drift, { what: 'no vector drift', ok: (d) => d.vectors.state === 'ready' && d.vectors.missing === 0 && d.vectors.stale === 0 && d.vectors.orphaned === 0, deadline: 60_000, every: 100 });
    expect(before).to.deep.include({ message_drift: 0 });
    expect(before.vectors).to.include({ state: 'ready', model: 'default', resolved_model: GLOVE });
    const docs = before.vectors.docs as number;
    expect(docs).to.be.greaterThan(5);

    // The hub's setting is `default`: the inference plugin's admin now points it at another model.
    await h.ok('PUT', '/api/gateway/admin/core-endpoint/defaults', k.adminToken, { embedding_model: TINY_CHAT });
    const changed = await drift();
    expect(changed.vectors).to.deep.include({ resolved_model: TINY_CHAT, missing: docs, current: 0 });
    expect(changed.vectors.other_models).to.deep.equal({ [GLOVE]: docs });
    expect((await status()).state).to.equal('filling');
    const filling = await h.ok('GET', '/hub/search?q=storm+clouds', await h.register('dave'));
    expect(filling.mode_used).to.equal('lexical');
    expect(filling.notice).to.match(/^search lexical-only: semantic index still filling \(\d+%\) — a zero here does not prove absence\.$/);

    const rebuilt = await h.ok('POST', '/hub/admin/search/rebuild', k.adminToken);
    expect(rebuilt).to.deep.include({ rebuilt: true, docs: { message: changed.expected_messages, file: changed.docs.file } });
    expect(rebuilt.vectors.rechecking).to.equal(true);
    const healed = await until(drift, { what: 'the vectors to be re-embedded with keel-tiny-chat', ok: (d) => d.vectors.current === docs && Object.keys(d.vectors.other_models).length === 0, deadline: 120_000, every: 200 });
    expect(healed.vectors).to.include({ resolved_model: TINY_CHAT, missing: 0, stale: 0 });
    await h.ok('PUT', '/api/gateway/admin/core-endpoint/defaults', k.adminToken, { embedding_model: GLOVE });
  });

  it('asks before a model change erases vectors, then refills with the new one', async () => {
    // The default points at glove again: the stored keel-tiny-chat vectors are those `default` no longer names.
    await h.ok('POST', '/hub/admin/search/rebuild', k.adminToken);
    await ready();
    const refused = await h.call('PUT', '/hub/admin/embedding', k.adminToken, { model: TINY_CHAT });
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.match(/^changing the embedding model erases \d+ docs' vectors and recomputes them\. Pass accept_recompute=true/);
    const moved = await h.ok('PUT', '/hub/admin/embedding', k.adminToken, { model: TINY_CHAT, accept_recompute: true });
    expect(moved).to.include({ changed: true, model: TINY_CHAT });
    expect(await ready()).to.include({ model: TINY_CHAT, resolved_model: TINY_CHAT });
    const same = await h.ok('PUT', '/hub/admin/embedding', k.adminToken, { model: TINY_CHAT });
    expect(same).to.deep.include({ changed: false, probe: { ok: true, dim: same.probe.dim } });
  });

  it('turned off, search is keyword search again; erase deletes the vectors', async () => {
    const erin = await h.register('erin');
    await h.ok('POST', '/hub/channels/plaza/join', erin, {});
    expect(await h.ok('DELETE', '/hub/admin/embedding', k.adminToken)).to.deep.equal({ disabled: true, erased_rows: 0 });
    const report = await h.ok('GET', '/hub/search?q=storm+clouds', erin);
    expect(report).to.include({ mode_used: 'lexical', semantic_coverage: null, notice: null });
    const explicit = await h.ok('GET', '/hub/search?q=storm+clouds&mode=semantic', erin);
    expect(explicit.notice).to.equal('search lexical-only: semantic is not enabled on this hub — a zero here does not prove absence.');
    const erased = await h.ok('DELETE', '/hub/admin/embedding?erase=true', k.adminToken);
    expect(erased.erased_rows).to.be.greaterThan(0);
    expect((await drift()).vectors).to.deep.equal({ state: 'disabled', model: null, resolved_model: null });
  });
});

describe('hub semantic search: a bounded embedding queue loses nothing', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const h = harness(() => k);

  before(async function () {
    requireGloveModel(this);
    k = await createTestKernel({
      plugins: [
        { plugin: inferencePlugin, config: { modelsDirs: [embeddingsDir], defaultChatModel: TINY_CHAT, defaultEmbeddingModel: 'local/glove-sif-50d' } },
        // Two documents queued at most, one text per embedding call: every fill below overflows the queue.
        { plugin: hubPlugin, config: { semantic: { queueCap: 2, batchSize: 1 } } },
      ],
    });
    await h.register('alice');
    for (let i = 0; i < 8; i++) await h.ok('POST', '/hub/channels/commons/messages', h.keys.alice!, { body: `The garden needs water before the summer number ${i}.` });
  });
  after(() => k?.stop());

  it('embeds every document when a fill and a burst of posts overflow the queue', async () => {
    await h.ok('PUT', '/hub/admin/embedding', k.adminToken, { model: 'local/glove-sif-50d' });
    await Promise.all(Array.from({ length: 8 }, (_, i) => h.ok('POST', '/hub/channels/commons/messages', h.keys.alice!, { body: `The river flows past the old bridge, day ${i}.` })));
    const drift = await until(() => h.ok('GET', '/hub/admin/search/drift', k.adminToken), {
      what: 'every document to be embedded', ok: (d) => d.vectors.state === 'ready', deadline: 120_000, every: 100,
    });
    expect(drift.vectors).to.include({ missing: 0, stale: 0, orphaned: 0 });
    expect(drift.vectors.current).to.equal(drift.vectors.docs);
    expect(drift.vectors.docs).to.be.at.least(16);
    expect((await h.ok('GET', '/hub/admin/embedding', k.adminToken)).queued).to.equal(0);
  });
});
