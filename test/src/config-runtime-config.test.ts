/**
 * Runtime settings through the HTTP API (seed 000 §2.4, §6 rule 1, §7 409; reference
 * gateway-surfaces §6.3): `GET/PUT /admin/runtime-config`, the `agents.default_workflow.<interface>`
 * rows in every state, the 409 naming the setting, the listings' `default_agent_workflows_unavailable`,
 * `agents.streaming_default` read at each start, and saved values surviving a restart (real LMDB).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount } from './helpers/accounts.js';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';
import { json, readSse } from './helpers/sse.js';
import { until } from './helpers/until.js';

const SETTING = 'agents.default_workflow.';

/** A flow answering its `prompt` with one llm_call on the tiny default model, declaring `interfaces`. */
function chat(id: string, version: string, interfaces: string[]): Buffer {
  return bundle(id, version, {
    id: 'chat',
    interfaces,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'], data: { pinDefaults: { prompt: 'Hi!' } } }),
      node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { temperature: 0 } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response'),
  });
}

interface Row {
  key: string;
  interface?: string;
  label: string;
  app: string | null;
  help: string;
  group: string;
  state: string;
  value: unknown;
  reason: string | null;
  source: string;
  default: unknown;
  eligible?: Array<{ value: string; registry_scope: string }>;
  saved_at: string | null;
  saved_by: string | null;
}

describe('runtime settings: GET/PUT /admin/runtime-config, default agent workflows, streaming default (HTTP, LMDB)', function () {
  let k: TestKernel;
  let bob: string;
  let url: string;
  const data = tempDir('keel-config-');
  const boot = () => createTestKernel({
    dataDir: data.dir,
    plugins: [
      inferencePlugin, ledgerPlugin, workspacesPlugin,
      // The config's values are the built-in defaults: `lost.agent.v1` names a bundle that is not there.
      { plugin: gatewayRunsPlugin, config: { defaultWorkflows: { 'abstractcode.agent.v1': 'keel-chat:keel-chat', 'lost.agent.v1': 'nowhere:main' } } },
    ],
  });
  before(async () => {
    k = await boot();
    url = (await k.listen()).url;
    bob = await createAccount(k, 'bob');
    for (const [bytes, name] of [[chat('helper', '1.0.0', ['helper.agent.v1']), 'helper.flow'], [chat('idle', '1.0.0', ['idle.agent.v1']), 'idle.flow']] as const) {
      const body = multipart({ scope: 'shared' }, { name, bytes });
      expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    }
    // A bundle only the admin's own account holds: never a default for everybody.
    const mine = multipart({ scope: 'private' }, { name: 'mine.flow', bytes: chat('mine', '1.0.0', ['mine.agent.v1']) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: mine.payload, headers: mine.headers })).statusCode).to.equal(201);
    const cat = multipart({}, { name: 'cat.flow', bytes: chat('cat', '1.0.0', ['catalog.agent.v1']) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/admin/workflow-catalog/upload', token: k.adminToken, payload: cat.payload, headers: cat.headers })).statusCode).to.equal(201);
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  const call = (method: string, path: string, token: string, payload?: unknown) => k.inject({ method, url: `/api/gateway${path}`, token, ...(payload === undefined ? {} : { payload }) });
  const rows = async () => {
    const res = await call('GET', '/admin/runtime-config', k.adminToken);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ items: Row[]; count: number }>().items;
  };
  const row = async (key: string) => (await rows()).find((r) => r.key === key);
  const put = (values: Record<string, unknown>, token = k.adminToken) => call('PUT', '/admin/runtime-config', token, { values });

  it('shows a built-in default that runs as state builtin, with the app fields and the eligible entrypoints', async () => {
    const code = await row(`${SETTING}abstractcode.agent.v1`);
    expect(code).to.deep.include({ interface: 'abstractcode.agent.v1', label: 'Code agent', app: 'code', group: 'apps', state: 'builtin', value: 'keel-chat:keel-chat', reason: null, source: 'default', default: 'keel-chat:keel-chat', saved_at: null, saved_by: null });
    expect(code!.help).to.be.a('string').and.not.equal('');
    expect(code!.eligible!.map((e) => e.value)).to.include('keel-chat:keel-chat');
  });

  it('shows an interface with no usable value as state none with the reason, and the value of a built-in that cannot run', async () => {
    const assistant = await row(`${SETTING}abstractassistant.agent.v1`);
    expect(assistant).to.deep.include({ group: 'apps', app: 'assistant', state: 'none', value: null, source: 'default' });
    expect(assistant!.reason).to.equal('no host workflow declares abstractassistant.agent.v1; the Assistant uses its built-in orchestrator');
    const idle = await row(`${SETTING}idle.agent.v1`);
    expect(idle).to.deep.include({ group: 'other', app: null, label: 'idle.agent.v1', state: 'none', value: null });
    expect(idle!.reason).to.equal('no default workflow is set for idle.agent.v1 (an admin sets agents.default_workflow.idle.agent.v1)');
    expect(idle!.eligible!.map((e) => e.value)).to.deep.equal(['idle:chat']);
    const lost = await row(`${SETTING}lost.agent.v1`);
    expect(lost).to.deep.include({ state: 'none', value: 'nowhere:main', source: 'default', reason: "workflow bundle 'nowhere' is not on this gateway" });
  });

  it('saves a value that resolves (state set, normalised, who and when) and a @default start runs it', async () => {
    const res = await put({ [`${SETTING}helper.agent.v1`]: 'private:helper:chat' });
    expect(res.statusCode, res.body).to.equal(200);
    const saved = res.json<{ items: Row[] }>().items.find((r) => r.key === `${SETTING}helper.agent.v1`)!;
    expect(saved).to.deep.include({ state: 'set', value: 'helper:chat', source: 'stored', reason: null, saved_by: 'admin' });
    expect(Number.isNaN(Date.parse(saved.saved_at!))).to.equal(false);
    const started = await call('POST', '/runs/start', bob, { flow_id: '@default', interface: 'helper.agent.v1', input_data: { prompt: 'Hi!' } });
    expect(started.statusCode, started.body).to.equal(200);
    expect(started.json<{ resolved_workflow: Record<string, unknown> }>().resolved_workflow).to.deep.include({ bundle_id: 'helper', flow_id: 'chat', source: 'gateway_default', interface: 'helper.agent.v1' });
    const bundles = (await call('GET', '/bundles', bob)).json<{ default_agent_workflows: Record<string, { source: string }> }>();
    expect(bundles.default_agent_workflows['helper.agent.v1']).to.deep.include({ bundle_id: 'helper', source: 'stored' });
  });

  it('a saved value that stops resolving is state broken; @default answers 409 naming the setting; both listings carry it as unavailable', async () => {
    expect((await put({ [`${SETTING}catalog.agent.v1`]: 'catalog:cat:chat' })).statusCode).to.equal(200);
    expect((await row(`${SETTING}catalog.agent.v1`))!.state).to.equal('set');
    expect((await call('POST', '/admin/workflow-catalog/cat/versions/1.0.0/deprecate', k.adminToken, { reason: 'retired' })).statusCode).to.equal(200);
    const broken = (await row(`${SETTING}catalog.agent.v1`))!;
    expect(broken).to.deep.include({ state: 'broken', value: 'catalog:cat:chat', source: 'stored' });
    expect(broken.reason).to.equal("'cat' has no published default version on this gateway's tenant catalog (give bundle_version, or an admin sets the default)");
    const refused = await call('POST', '/runs/start', bob, { flow_id: '@default', interface: 'catalog.agent.v1' });
    expect(refused.statusCode).to.equal(409);
    const message = refused.json<{ detail: { message: string } }>().detail.message;
    expect(message).to.match(/^The gateway default workflow for catalog\.agent\.v1 cannot run: /);
    expect(message).to.contain("(setting agents.default_workflow.catalog.agent.v1 = 'catalog:cat:chat', source: stored, the saved setting)");
    expect(message).to.contain('PUT /api/gateway/admin/runtime-config');
    const expected = { source: 'stored', value: 'catalog:cat:chat', reason: broken.reason };
    for (const path of ['/bundles', '/workflow-catalog']) {
      const listing = (await call('GET', path, k.adminToken)).json<{ default_agent_workflows_unavailable: Record<string, unknown> }>();
      expect(listing.default_agent_workflows_unavailable['catalog.agent.v1'], path).to.deep.equal(expected);
    }
  });

  it('null removes a saved value: the row goes back to its built-in state', async () => {
    expect((await put({ [`${SETTING}abstractcode.agent.v1`]: 'helper:chat' })).statusCode).to.equal(400); // helper does not declare it
    expect((await put({ [`${SETTING}idle.agent.v1`]: 'idle:chat' })).statusCode).to.equal(200);
    expect((await row(`${SETTING}idle.agent.v1`))!.state).to.equal('set');
    expect((await put({ [`${SETTING}idle.agent.v1`]: null })).statusCode).to.equal(200);
    expect(await row(`${SETTING}idle.agent.v1`)).to.deep.include({ state: 'none', value: null, saved_at: null });
  });

  it('refuses bad values with 400 naming the key, and saves none of a PUT that has one', async () => {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ 'agents.nothing': 1 }, 'agents.nothing', /'agents\.nothing' is not a runtime setting; the settings are .*agents\.streaming_default/],
      [{ 'agents.default_workflow.': 'helper:chat' }, 'agents.default_workflow.', /is not a runtime setting/],
      [{ 'agents.streaming_default': 'yes' }, 'agents.streaming_default', /^agents\.streaming_default = "yes" refused: the value is true or false/],
      [{ [`${SETTING}helper.agent.v1`]: 42 }, `${SETTING}helper.agent.v1`, /^agents\.default_workflow\.helper\.agent\.v1 = 42 refused: the value is a workflow reference string/],
      [{ [`${SETTING}helper.agent.v1`]: 'not a reference' }, `${SETTING}helper.agent.v1`, /refused: 'not a reference' is not a workflow reference/],
      [{ [`${SETTING}helper.agent.v1`]: 'nowhere:main' }, `${SETTING}helper.agent.v1`, /refused: workflow bundle 'nowhere' is not on this gateway\.$/],
      [{ [`${SETTING}helper.agent.v1`]: 'idle:chat' }, `${SETTING}helper.agent.v1`, /refused: 'idle@1\.0\.0:chat' declares idle\.agent\.v1, not helper\.agent\.v1\.$/],
      [{ [`${SETTING}helper.agent.v1`]: 'helper:missing' }, `${SETTING}helper.agent.v1`, /has no entrypoint 'missing' \(it has chat\)/],
      [{ [`${SETTING}bad iface`]: 'helper:chat' }, `${SETTING}bad iface`, /is not a setting: the interface id/],
      [{ [`${SETTING}mine.agent.v1`]: 'mine:chat' }, `${SETTING}mine.agent.v1`, /refused: 'mine@1\.0\.0' is a private bundle of account 'admin', which other accounts cannot run; upload it to the shared bundle directory or publish it to the catalog first\.$/],
    ];
    for (const [values, field, sentence] of cases) {
      const res = await put(values);
      expect(res.statusCode, JSON.stringify(values)).to.equal(400);
      const detail = res.json<{ detail: { message: string; field?: string } }>().detail;
      expect(detail.message).to.match(sentence);
      expect(detail.field).to.equal(field);
    }
    // A prototype key never reaches the store (the kernel refuses the body).
    expect((await put({ ['__proto__']: true })).statusCode).to.equal(400);
    // One good key beside a bad one: nothing is saved.
    const mixed = await put({ 'agents.streaming_default': true, 'agents.nothing': 1 });
    expect(mixed.statusCode).to.equal(400);
    expect((await row('agents.streaming_default'))!.state).to.equal('builtin');
    expect((await call('PUT', '/admin/runtime-config', k.adminToken, { values: {} })).statusCode).to.equal(400);
    expect((await call('PUT', '/admin/runtime-config', k.adminToken, { values: { 'agents.streaming_default': true }, extra: 1 })).statusCode).to.equal(400);
  });

  it('refuses a non-admin (403) and no token (401) on GET and PUT, and saves nothing', async () => {
    expect((await call('GET', '/admin/runtime-config', bob)).statusCode).to.equal(403);
    const put403 = await put({ 'agents.streaming_default': true }, bob);
    expect(put403.statusCode).to.equal(403);
    expect(put403.json<{ detail: unknown }>().detail).to.be.a('string');
    expect((await k.inject({ method: 'GET', url: '/api/gateway/admin/runtime-config' })).statusCode).to.equal(401);
    expect((await row('agents.streaming_default'))!.state).to.equal('builtin');
  });

  const deltas = async (runId: string, token: string) => {
    const stream = await readSse(`${url}/api/gateway/runs/${runId}/ledger/stream`, { token, deadline: 60_000 });
    return stream.events.map((e) => ({ event: e.event, data: json(e) })).filter((e) => e.event === 'llm.delta');
  };
  const startChat = async (token: string, input: Record<string, unknown> = { prompt: 'Hi!' }) => {
    const res = await call('POST', '/runs/start', token, { bundle_id: 'keel-chat', input_data: input });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ run_id: string }>().run_id;
  };

  it('reads agents.streaming_default at each start: saved true streams a start that omits _runtime.stream, an explicit false still wins', async () => {
    expect(await deltas(await startChat(bob), bob)).to.have.length(0);
    const saved = await put({ 'agents.streaming_default': true });
    expect(saved.json<{ items: Row[] }>().items.find((r) => r.key === 'agents.streaming_default')).to.deep.include({ state: 'set', value: true, source: 'stored', default: false });
    expect((await deltas(await startChat(bob), bob)).length).to.be.greaterThan(0);
    expect(await deltas(await startChat(bob, { prompt: 'Hi!', _runtime: { stream: false } }), bob)).to.have.length(0);
  });

  it('keeps saved values across a restart on the same data directory', async () => {
    await k.stop();
    k = await boot();
    url = (await k.listen()).url;
    const all = await rows();
    expect(all.find((r) => r.key === 'agents.streaming_default')).to.deep.include({ state: 'set', value: true, saved_by: 'admin' });
    expect(all.find((r) => r.key === `${SETTING}helper.agent.v1`)).to.deep.include({ state: 'set', value: 'helper:chat' });
    expect(all.find((r) => r.key === `${SETTING}catalog.agent.v1`)).to.deep.include({ state: 'broken' });
    const run = await until(async () => (await call('POST', '/runs/start', bob, { flow_id: '@default', interface: 'helper.agent.v1' })).statusCode, { ok: (s) => s === 200, deadline: 30_000, what: 'the saved default to start' });
    expect(run).to.equal(200);
    expect((await deltas(await startChat(bob), bob)).length).to.be.greaterThan(0);
  });
});
