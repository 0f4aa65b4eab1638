import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
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

/** A catalog flow: its start's `prompt` (default 'Hello!') goes to one llm_call; the tiny default model answers. */
function chatBundle(id: string, version: string, opts: { interfaces?: string[]; greeting?: string } = {}): Buffer {
  return bundle(id, version, {
    id: 'chat',
    interfaces: opts.interfaces ?? ['catalogchat.agent.v1'],
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'], data: { pinDefaults: { prompt: opts.greeting ?? 'Hello!' } } }),
      node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { temperature: 0 } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response'),
  });
}

interface Record_ {
  scope: string;
  tenant_id: string;
  bundle_id: string;
  bundle_version: string;
  sha256: string;
  status: string;
  status_reason: string | null;
  visibility: string;
  acl: { roles: string[]; users: string[]; deny_users: string[] };
  run_policy: { run_as: string };
  entrypoints: Array<{ flow_id: string; workflow_id: string; is_agent_default: boolean; agent_default_interfaces: string[] }>;
  default_entrypoint: string | null;
  created_at: string;
  updated_at: string;
  published_at: string;
  publisher: string;
  path: string;
  bundle_ref: string;
  is_default: boolean;
  default_version: string | null;
  actions: { can_run: boolean; can_inspect: boolean; can_admin: boolean };
}

interface Detail {
  detail: { reason_code: string; message: string; field?: string };
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('workflow catalog (tenant_catalog): store, statuses, default pointer, ACL, runs (HTTP, tiny model)', function () {
  let k: TestKernel;
  let bob: string;
  let carol: string;
  let dan: string;
  const data = tempDir('keel-catalog-');
  const boot = () => createTestKernel({
    dataDir: data.dir,
    plugins: [
      inferencePlugin,
      ledgerPlugin, workspacesPlugin,
      {
        plugin: gatewayRunsPlugin,
        config: { defaultWorkflows: { 'abstractcode.agent.v1': 'keel-chat:keel-chat', 'catalogchat.agent.v1': 'catalog:cat-chat:chat', 'lost.agent.v1': 'catalog:nowhere:main' } },
      },
    ],
  });
  before(async () => {
    k = await boot();
    const user = async (account: string, tenant = 'default') =>
      (await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account, tenant } })).json<{ token: { token: string } }>().token.token;
    bob = await user('bob');
    carol = await user('carol');
    dan = await user('dan', 'acme');
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  const call = (method: string, url: string, token: string, payload?: unknown) => k.inject({ method, url: `/api/gateway${url}`, token, ...(payload === undefined ? {} : { payload }) });
  const upload = (bytes: Buffer, fields: Record<string, string> = {}, token = k.adminToken) => {
    const body = multipart(fields, { name: 'x.flow', bytes });
    return k.inject({ method: 'POST', url: '/api/gateway/admin/workflow-catalog/upload', token, payload: body.payload, headers: body.headers });
  };
  const start = (payload: Record<string, unknown>, token = k.adminToken) => call('POST', '/runs/start', token, payload);
  const finished = (id: string, token: string) =>
    until(async () => (await call('GET', `/runs/${id}`, token)).json<{ status: string; output: Record<string, unknown> | null; error: string | null; workflow_policy: Record<string, unknown> | null }>(), {
      ok: (run) => ['completed', 'failed', 'cancelled'].includes(run.status),
      deadline: 60_000,
      what: `run ${id} to finish`,
    });
  const versions = async (bundleId: string, token = k.adminToken, query = '') => (await call('GET', `/workflow-catalog/${bundleId}${query}`, token)).json<{ items: Record_[] }>().items;

  const v100 = chatBundle('cat-chat', '1.0.0');

  it('publishes an immutable version (201), answers the same bytes idempotently (200) and other bytes 409', async () => {
    const first = await upload(v100);
    expect(first.statusCode).to.equal(201);
    const body = first.json<{ ok: boolean; created: boolean; record: Record_; reload: unknown }>();
    expect(body.ok).to.equal(true);
    expect(body.created).to.equal(true);
    const r = body.record;
    expect(r).to.deep.include({
      scope: 'tenant_catalog', tenant_id: 'default', bundle_id: 'cat-chat', bundle_version: '1.0.0', sha256: sha(v100), status: 'published', visibility: 'tenant',
      run_policy: { run_as: 'caller' }, default_entrypoint: 'chat', publisher: 'admin', bundle_ref: 'cat-chat@1.0.0', is_default: true, default_version: '1.0.0', status_reason: null,
    });
    expect(r.acl).to.deep.equal({ roles: ['user', 'admin'], users: [], deny_users: [] });
    expect(r.actions).to.deep.equal({ can_run: true, can_inspect: true, can_admin: true });
    expect(r.entrypoints.map((e) => e.workflow_id)).to.deep.equal(['cat-chat@1.0.0:chat']);
    expect(r.published_at).to.be.a('string');
    // The bytes sit create-exclusive under the plugin's data folder, byte for byte.
    const file = path.join(k.dataDir, 'plugins', 'gateway-runs', 'workflow_catalog', 'bundles', r.path);
    expect(readFileSync(file).equals(v100)).to.equal(true);

    const again = await upload(v100);
    expect(again.statusCode).to.equal(200);
    const same = again.json<{ created: boolean; record: Record_ }>();
    expect(same.created).to.equal(false);
    expect(same.record).to.deep.include({ created_at: r.created_at, published_at: r.published_at, sha256: r.sha256 });

    const other = await upload(chatBundle('cat-chat', '1.0.0', { greeting: 'Hi!' }));
    expect(other.statusCode).to.equal(409);
    expect(other.json<Detail>().detail.message).to.contain('cat-chat@1.0.0').and.contain('different content');
    expect(readFileSync(file).equals(v100)).to.equal(true);
  });

  it('keeps the catalog admin-only and framework_catalog reserved (501), and names what is wrong with a bad upload', async () => {
    expect((await upload(v100, {}, bob)).statusCode).to.equal(403);
    expect((await upload(v100, {}, '')).statusCode).to.equal(401);
    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.0.0/deprecate', bob, {})).statusCode).to.equal(403);
    expect((await call('PUT', '/admin/workflow-catalog/cat-chat/versions/1.0.0/acl', bob, { roles: ['user'] })).statusCode).to.equal(403);
    expect((await call('DELETE', '/admin/workflow-catalog/cat-chat/versions/1.0.0', carol)).statusCode).to.equal(403);
    const bad = await upload(Buffer.from('not a zip'));
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<Detail>().detail.message).to.contain('zip');
    const noBundleId = await call('POST', '/admin/workflow-catalog/promote', k.adminToken, {});
    expect(noBundleId.statusCode).to.equal(400);
    for (const res of [
      await upload(v100, { scope: 'framework_catalog' }),
      await call('GET', '/workflow-catalog?scope=framework_catalog', bob),
      await call('GET', '/workflow-catalog/cat-chat?scope=global', bob),
      await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.0.0/default?scope=framework', k.adminToken),
    ]) {
      expect(res.statusCode).to.equal(501);
      expect(res.json<Detail>().detail.message).to.equal('framework_catalog is reserved but not loadable yet; use tenant_catalog');
    }
    expect((await call('GET', '/workflow-catalog?scope=planet', bob)).statusCode).to.equal(400);
    // An id far beyond any bundle id is bad input, not a storage error.
    expect((await call('GET', `/workflow-catalog/${'b'.repeat(3000)}`, bob)).statusCode).to.equal(400);
    const startFramework = await start({ bundle_id: 'cat-chat', registry_scope: 'framework_catalog' }, bob);
    expect(startFramework.statusCode).to.equal(400);
    expect(startFramework.json<Detail>().detail.message).to.contain('framework_catalog is reserved but not loadable yet');
  });

  it('moves the default pointer: on upload unless make_default=false, by the admin route, never to a missing version', async () => {
    const kept = (await upload(chatBundle('cat-chat', '1.1.0'), { make_default: 'false' })).json<{ record: Record_ }>().record;
    expect(kept).to.deep.include({ is_default: false, default_version: '1.0.0' });
    const moved = await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.1.0/default', k.adminToken);
    expect(moved.statusCode).to.equal(200);
    expect(moved.json<{ record: Record_; default_version: string }>()).to.deep.include({ default_version: '1.1.0' });
    expect((await versions('cat-chat')).map((r) => [r.bundle_version, r.is_default, r.default_version])).to.deep.equal([['1.1.0', true, '1.1.0'], ['1.0.0', false, '1.1.0']]);
    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/9.9.9/default', k.adminToken)).statusCode).to.equal(404);
    const newest = (await upload(chatBundle('cat-chat', '1.2.0'))).json<{ record: Record_ }>().record;
    expect(newest).to.deep.include({ is_default: true, default_version: '1.2.0' });
    // make_default=false still sets the pointer of a bundle that has none.
    expect((await upload(chatBundle('solo', '0.1.0'), { make_default: 'false' })).json<{ record: Record_ }>().record.is_default).to.equal(true);
  });

  it('starts catalog runs by the default pointer and by version, and records the catalog record each run ran', async () => {
    const byDefault = await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', input_data: { prompt: 'What is the capital of Japan?' } }, bob);
    expect(byDefault.statusCode).to.equal(200);
    const a = byDefault.json<{ run_id: string; resolved_workflow: Record<string, unknown> }>();
    expect(a.resolved_workflow).to.deep.equal({ workflow_id: 'cat-chat@1.2.0:chat', bundle_id: 'cat-chat', bundle_version: '1.2.0', flow_id: 'chat', registry_scope: 'tenant_catalog', name: 'cat-chat', source: 'client', interface: null });
    const run = await finished(a.run_id, bob);
    expect(run.status).to.equal('completed');
    expect(run.output).to.deep.include({ response: 'The capital of Japan is Tokyo.' });
    const record = (await versions('cat-chat')).find((r) => r.bundle_version === '1.2.0')!;
    expect(run.workflow_policy).to.deep.include({ registry_scope: 'tenant_catalog', tenant_id: 'default', bundle_ref: 'cat-chat@1.2.0', sha256: record.sha256, flow_id: 'chat', run_as: 'caller' });

    const pinned = await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', bundle_version: '1.0.0' }, bob);
    expect(pinned.json<{ resolved_workflow: { bundle_version: string } }>().resolved_workflow.bundle_version).to.equal('1.0.0');
    const second = await finished(pinned.json<{ run_id: string }>().run_id, bob);
    expect(second.output).to.deep.include({ response: 'Hello! How can I help you today?' });
    expect(second.workflow_policy).to.deep.include({ bundle_ref: 'cat-chat@1.0.0', sha256: sha(v100) });

    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', bundle_version: '7.0.0' }, bob)).statusCode).to.equal(404);
    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'nowhere' }, bob)).statusCode).to.equal(404);
    // The catalog is not the private registry, and the shared bundle directory is not the catalog.
    expect((await start({ bundle_id: 'cat-chat' }, bob)).statusCode).to.equal(404);
    const shared = multipart({ scope: 'shared' }, { name: 'dir.flow', bytes: chatBundle('dir-only', '1.0.0') });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: shared.payload, headers: shared.headers })).statusCode).to.equal(201);
    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'dir-only' }, bob)).statusCode).to.equal(404);
    expect((await start({ bundle_id: 'dir-only' }, bob)).statusCode).to.equal(200);
  });

  it('lists the catalog with the record fields, default_agent_workflows (the same as GET /bundles) and the @default of a catalog: value', async () => {
    const list = (await call('GET', '/workflow-catalog', bob)).json<{ items: Record_[]; scope: string; tenant_id: string; count: number; default_agent_workflows: Record<string, Record<string, unknown>>; default_agent_workflows_unavailable: Record<string, { source: string; value: string; reason: string }> }>();
    expect(list).to.deep.include({ scope: 'tenant_catalog', tenant_id: 'default', count: list.items.length });
    expect(list.items.map((r) => r.bundle_ref)).to.deep.equal(['cat-chat@1.2.0', 'cat-chat@1.1.0', 'cat-chat@1.0.0', 'docs-qa@0.1.2', 'solo@0.1.0']);
    expect(list.items[0]!.actions).to.deep.equal({ can_run: true, can_inspect: true, can_admin: false });
    expect(list.default_agent_workflows['catalogchat.agent.v1']).to.deep.equal({ workflow_id: 'cat-chat@1.2.0:chat', bundle_id: 'cat-chat', bundle_version: '1.2.0', flow_id: 'chat', registry_scope: 'tenant_catalog', name: 'cat-chat', source: 'default' });
    expect(list.default_agent_workflows['abstractcode.agent.v1']).to.deep.include({ bundle_id: 'keel-chat', registry_scope: 'private', source: 'default' });
    expect(list.default_agent_workflows_unavailable['lost.agent.v1']).to.deep.equal({ source: 'default', value: 'catalog:nowhere:main', reason: "workflow bundle 'nowhere' is not on this gateway's tenant catalog" });
    expect(list.default_agent_workflows_unavailable['abstractassistant.agent.v1']!.reason).to.contain('built-in orchestrator');
    expect(list.items[0]!.entrypoints[0]).to.deep.include({ is_agent_default: true, agent_default_interfaces: ['catalogchat.agent.v1'] });
    expect(list.items[1]!.entrypoints[0]).to.deep.include({ is_agent_default: false });
    const bundles = (await call('GET', '/bundles', bob)).json<{ default_agent_workflows: unknown; default_agent_workflows_unavailable: unknown; items: Array<{ bundle_id: string; entrypoints: Array<{ is_agent_default: boolean }> }> }>();
    expect(bundles.default_agent_workflows).to.deep.equal(list.default_agent_workflows);
    expect(bundles.default_agent_workflows_unavailable).to.deep.equal(list.default_agent_workflows_unavailable);
    expect(bundles.items.find((b) => b.bundle_id === 'keel-chat')!.entrypoints[0]!.is_agent_default).to.equal(true);

    const agent = await start({ flow_id: '@default', interface: 'catalogchat.agent.v1', input_data: { prompt: 'What is the capital of Japan?' } }, bob);
    expect(agent.statusCode).to.equal(200);
    const { run_id, resolved_workflow } = agent.json<{ run_id: string; resolved_workflow: Record<string, unknown> }>();
    expect(resolved_workflow).to.deep.include({ workflow_id: 'cat-chat@1.2.0:chat', registry_scope: 'tenant_catalog', source: 'gateway_default', interface: 'catalogchat.agent.v1' });
    const run = await finished(run_id, bob);
    expect(run.output).to.deep.include({ response: 'The capital of Japan is Tokyo.' });
    expect(run.workflow_policy).to.deep.include({ bundle_ref: 'cat-chat@1.2.0' });
    const lost = await start({ flow_id: '@default', interface: 'lost.agent.v1' }, bob);
    expect(lost.statusCode).to.equal(409);
    expect(lost.json<Detail>().detail.message).to.contain('agents.default_workflow.lost.agent.v1').and.contain("is not on this gateway's tenant catalog");
  });

  it('inspects a flow and its input schema for callers who may run it (ACL-aware)', async () => {
    const flow = await call('GET', '/workflow-catalog/cat-chat/versions/1.2.0/flows/chat', bob);
    expect(flow.statusCode).to.equal(200);
    const f = flow.json<{ bundle_ref: string; workflow_id: string; tenant_id: string; flow: { nodes: Array<{ id: string }> } }>();
    expect(f).to.deep.include({ bundle_ref: 'cat-chat@1.2.0', workflow_id: 'cat-chat@1.2.0:chat', tenant_id: 'default' });
    expect(f.flow.nodes.map((n) => n.id)).to.deep.equal(['start', 'ask', 'end']);
    const schemaRes = await call('GET', '/workflow-catalog/cat-chat/versions/1.2.0/flows/chat/input_schema', bob);
    expect(schemaRes.json<Record<string, unknown>>()).to.deep.include({ tenant_id: 'default', bundle_id: 'cat-chat', bundle_version: '1.2.0', bundle_ref: 'cat-chat@1.2.0', flow_id: 'chat', workflow_id: 'cat-chat@1.2.0:chat' });
    expect(schemaRes.json<{ input_schema: { properties: Record<string, unknown> } }>().input_schema.properties.prompt).to.deep.include({ default: 'Hello!' });
    expect((await call('GET', '/workflow-catalog/cat-chat/versions/1.2.0/flows/nope', bob)).statusCode).to.equal(404);
    expect((await call('GET', '/workflow-catalog/cat-chat/versions/5.0.0/flows/chat', bob)).statusCode).to.equal(404);
  });

  it('enforces the ACL: roles, users, deny_users (as user or tenant:user), admins always; other tenants never', async () => {
    const acl = (await upload(chatBundle('locked', '1.0.0'), { roles: 'admin' })).json<{ record: Record_ }>().record;
    expect(acl.acl).to.deep.equal({ roles: ['admin'], users: [], deny_users: [] });
    const run = (token: string) => start({ registry_scope: 'tenant_catalog', bundle_id: 'locked' }, token);
    const denied = await run(bob);
    expect(denied.statusCode).to.equal(403);
    expect(denied.json<Detail>().detail).to.deep.include({ reason_code: 'forbidden' });
    expect((await run(k.adminToken)).statusCode).to.equal(200);
    expect((await call('GET', '/workflow-catalog', bob)).json<{ items: Record_[] }>().items.some((r) => r.bundle_id === 'locked')).to.equal(false);
    expect((await call('GET', '/workflow-catalog/locked', bob)).statusCode).to.equal(404);
    expect((await call('GET', '/workflow-catalog/locked/versions/1.0.0/flows/chat', bob)).statusCode).to.equal(403);
    expect((await call('GET', '/workflow-catalog/locked/versions/1.0.0/flows/chat', k.adminToken)).statusCode).to.equal(200);

    const users = await call('PUT', '/admin/workflow-catalog/locked/versions/1.0.0/acl', k.adminToken, { users: 'bob, bob' });
    expect(users.statusCode).to.equal(200);
    expect(users.json<{ record: Record_ }>().record.acl).to.deep.equal({ roles: [], users: ['bob'], deny_users: [] });
    expect((await run(bob)).statusCode).to.equal(200);
    expect((await run(carol)).statusCode).to.equal(403);

    await call('PUT', '/admin/workflow-catalog/locked/versions/1.0.0/acl', k.adminToken, { roles: ['user'], deny_users: ['default:carol'] });
    expect((await run(bob)).statusCode).to.equal(200);
    expect((await run(carol)).statusCode).to.equal(403);
    await call('PUT', '/admin/workflow-catalog/locked/versions/1.0.0/acl', k.adminToken, { deny_users: 'bob' });
    expect((await run(bob)).statusCode).to.equal(403);
    const record = (await versions('locked', carol))[0]!;
    expect(record.acl).to.deep.equal({ roles: ['user', 'admin'], users: [], deny_users: ['bob'] });
    expect(record.actions).to.deep.equal({ can_run: true, can_inspect: true, can_admin: false });

    // Tenant acme has its own catalog: dan sees none of tenant default's, and may not ask for it.
    expect((await run(dan)).statusCode).to.equal(404);
    expect((await call('GET', '/workflow-catalog?tenant_id=default', dan)).statusCode).to.equal(403);
    expect((await call('GET', '/workflow-catalog', dan)).json<{ items: unknown[]; tenant_id: string }>()).to.deep.include({ items: [], tenant_id: 'acme' });
    expect((await upload(chatBundle('acme-chat', '1.0.0'), { tenant_id: 'acme' })).statusCode).to.equal(201);
    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'acme-chat' }, dan)).statusCode).to.equal(200);
    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'acme-chat' }, bob)).statusCode).to.equal(404);
    expect((await call('GET', '/workflow-catalog?tenant_id=acme', k.adminToken)).json<{ items: Record_[] }>().items.map((r) => r.bundle_ref)).to.deep.equal(['acme-chat@1.0.0']);
  });

  it('deprecate, block and tombstone: only published starts (409), the pointer leaves a non-published default, bytes stay', async () => {
    const dep = await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.2.0/deprecate', k.adminToken, { reason: 'use 1.1.0' });
    expect(dep.statusCode).to.equal(200);
    expect(dep.json<{ record: Record_ }>().record).to.deep.include({ status: 'deprecated', status_reason: 'use 1.1.0', is_default: false, default_version: null });
    const noDefault = await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat' }, bob);
    expect(noDefault.statusCode).to.equal(404);
    expect(noDefault.json<Detail>().detail.message).to.contain('no published default version');
    const refused = await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', bundle_version: '1.2.0' }, bob);
    expect(refused.statusCode).to.equal(409);
    expect(refused.json<Detail>().detail).to.deep.include({ reason_code: 'workflow_deprecated' });
    expect(refused.json<Detail>().detail.message).to.contain('deprecated').and.contain('use 1.1.0');
    const agent = await start({ flow_id: '@default', interface: 'catalogchat.agent.v1' }, bob);
    expect(agent.statusCode).to.equal(409);
    expect(agent.json<Detail>().detail.message).to.contain('agents.default_workflow.catalogchat.agent.v1').and.contain('no published default version');
    // A non-published version cannot become the default, by the route or by an explicit make_default.
    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.2.0/default', k.adminToken)).statusCode).to.equal(409);
    // Visible to admins only with include_inactive; never to a user.
    expect((await versions('cat-chat', bob)).map((r) => r.bundle_version)).to.deep.equal(['1.1.0', '1.0.0']);
    expect((await versions('cat-chat', bob, '?include_inactive=true')).map((r) => r.bundle_version)).to.deep.equal(['1.1.0', '1.0.0']);
    expect((await versions('cat-chat', k.adminToken, '?include_inactive=true')).map((r) => [r.bundle_version, r.status])).to.deep.equal([['1.2.0', 'deprecated'], ['1.1.0', 'published'], ['1.0.0', 'published']]);
    expect((await call('GET', '/workflow-catalog/cat-chat/versions/1.2.0/flows/chat', bob)).statusCode).to.equal(403);

    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.1.0/default', k.adminToken)).statusCode).to.equal(200);
    const blocked = await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.1.0/block', k.adminToken);
    expect(blocked.json<{ record: Record_ }>().record).to.deep.include({ status: 'blocked', default_version: null });
    const blockedStart = await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', bundle_version: '1.1.0' }, bob);
    expect(blockedStart.statusCode).to.equal(409);
    expect(blockedStart.json<Detail>().detail.message).to.contain('blocked');

    const gone = await call('DELETE', '/admin/workflow-catalog/cat-chat/versions/1.0.0?reason=retired', k.adminToken);
    expect(gone.statusCode).to.equal(200);
    const g = gone.json<{ ok: boolean; record: Record_; deleted_bytes: boolean }>();
    expect(g).to.deep.include({ ok: true, deleted_bytes: false });
    expect(g.record).to.deep.include({ status: 'tombstoned', status_reason: 'retired' });
    expect(existsSync(path.join(k.dataDir, 'plugins', 'gateway-runs', 'workflow_catalog', 'bundles', g.record.path))).to.equal(true);
    expect((await start({ registry_scope: 'tenant_catalog', bundle_id: 'cat-chat', bundle_version: '1.0.0' }, bob)).statusCode).to.equal(409);
    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/1.0.0/deprecate', k.adminToken)).statusCode).to.equal(409);
    // The same bytes again are idempotent and keep the tombstone.
    const same = await upload(v100);
    expect(same.statusCode).to.equal(200);
    expect(same.json<{ record: Record_ }>().record).to.deep.include({ status: 'tombstoned', is_default: false });
    expect((await upload(v100, { make_default: 'true' })).statusCode).to.equal(409);
    expect((await call('POST', '/admin/workflow-catalog/cat-chat/versions/4.0.0/block', k.adminToken)).statusCode).to.equal(404);
    expect((await call('GET', '/workflow-catalog/cat-chat', bob)).statusCode).to.equal(404);
  });

  it('promotes an installed bundle into the catalog (the same bytes), idempotently', async () => {
    const bytes = chatBundle('promo', '2.0.0');
    const body = multipart({}, { name: 'promo.flow', bytes });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    const promoted = await call('POST', '/admin/workflow-catalog/promote', k.adminToken, { bundle_id: 'promo', acl: { roles: 'user' } });
    expect(promoted.statusCode).to.equal(201);
    expect(promoted.json<{ record: Record_ & { origin: string } }>().record).to.deep.include({ bundle_ref: 'promo@2.0.0', sha256: sha(bytes), origin: 'promote', is_default: true });
    expect((await call('POST', '/admin/workflow-catalog/promote', k.adminToken, { bundle_id: 'promo', bundle_version: '2.0.0' })).statusCode).to.equal(200);
    expect((await call('POST', '/admin/workflow-catalog/promote', k.adminToken, { bundle_id: 'promo', bundle_version: '3.0.0' })).statusCode).to.equal(404);
    expect((await call('POST', '/admin/workflow-catalog/promote', bob, { bundle_id: 'promo' })).statusCode).to.equal(403);
    const run = await start({ registry_scope: 'tenant_catalog', bundle_id: 'promo', input_data: { prompt: 'What is the capital of Japan?' } }, bob);
    expect((await finished(run.json<{ run_id: string }>().run_id, bob)).output).to.deep.include({ response: 'The capital of Japan is Tokyo.' });
    // A scheduled run of a catalog version: its occurrences (child runs) run the same catalog bytes.
    const scheduled = await call('POST', '/runs/schedule', bob, { registry_scope: 'tenant_catalog', bundle_id: 'promo', input_data: { prompt: 'What is the capital of Japan?' }, start_at: 'now', repeat_count: 1 });
    expect(scheduled.statusCode).to.equal(200);
    const parentId = scheduled.json<{ run_id: string }>().run_id;
    expect((await finished(parentId, bob)).status).to.equal('completed');
    const kids = (await call('GET', `/runs?parent_run_id=${parentId}`, bob)).json<{ items: Array<{ run_id: string }> }>().items;
    expect(kids).to.have.length(1);
    const kid = await finished(kids[0]!.run_id, bob);
    expect(kid.output).to.deep.include({ response: 'The capital of Japan is Tokyo.' });
    expect(kid.workflow_policy).to.deep.include({ bundle_ref: 'promo@2.0.0', sha256: sha(bytes) });
  });

  it('keeps records, statuses, pointers and bytes across a restart, and runs catalog versions after it', async () => {
    const before = (await call('GET', '/workflow-catalog?include_inactive=true', k.adminToken)).json<{ items: Record_[] }>().items;
    await k.stop();
    k = await boot();
    const after = (await call('GET', '/workflow-catalog?include_inactive=true', k.adminToken)).json<{ items: Record_[] }>().items;
    expect(after).to.deep.equal(before);
    expect(after.filter((r) => r.bundle_id === 'cat-chat').map((r) => r.status)).to.deep.equal(['deprecated', 'blocked', 'tombstoned']);
    const run = await start({ registry_scope: 'tenant_catalog', bundle_id: 'promo', input_data: { prompt: 'What is the capital of Japan?' } }, bob);
    expect((await finished(run.json<{ run_id: string }>().run_id, bob)).output).to.deep.include({ response: 'The capital of Japan is Tokyo.' });
  });
});
