/**
 * Issue 9 item 6: a `.flow` zip bomb is refused while inflating (413, never stored), an archive with
 * too many entries is refused (400), and a stored bundle that breaks the limits is skipped at read
 * time with a log line instead of freezing or crashing the server.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { zipSync } from 'fflate';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

function simpleBundle(id: string, version = '1.0.0', description = ''): Buffer {
  return bundle(id, version, {
    id: 'main',
    nodes: [node({ id: 'start', type: 'on_flow_start', data: { description } }), node({ id: 'end', type: 'on_flow_end' })],
    edges: edges('start -> end'),
  });
}

/** A valid manifest next to a flow file that is 64 MiB of zeros: ~64 KiB on the wire at level 9. */
function zipBomb(id: string): Buffer {
  const manifest = { bundle_format_version: '1', bundle_id: id, bundle_version: '1.0.0', entrypoints: [{ flow_id: 'main' }], flows: { main: 'flows/main.json' } };
  return Buffer.from(zipSync({ 'manifest.json': enc(manifest), 'flows/main.json': new Uint8Array(64 * 1024 * 1024) }, { level: 9 }));
}

function manyEntries(id: string, count: number): Buffer {
  const files: Record<string, Uint8Array> = {};
  const manifest = { bundle_format_version: '1', bundle_id: id, bundle_version: '1.0.0', entrypoints: [{ flow_id: 'main' }], flows: { main: 'flows/main.json' } };
  files['manifest.json'] = enc(manifest);
  for (let i = 0; i < count; i++) files[`pad/${i}.txt`] = new Uint8Array(0);
  return Buffer.from(zipSync(files));
}

/** A valid bundle whose flow holds a pin default nested `depth` arrays deep (written as text: no recursion). */
function deepFlow(id: string, depth: number): Buffer {
  const manifest = { bundle_format_version: '1', bundle_id: id, bundle_version: '1.0.0', entrypoints: [{ flow_id: 'main' }], flows: { main: 'flows/main.json' } };
  const flow = { id: 'main', name: id, entryNode: 'start', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'end', type: 'on_flow_end', inputs: ['v'], data: { pinDefaults: { v: '@DEEP@' } } })], edges: edges('start -> end') };
  const text = JSON.stringify(flow).replace('"@DEEP@"', `${'['.repeat(depth)}1${']'.repeat(depth)}`);
  return Buffer.from(zipSync({ 'manifest.json': enc(manifest), 'flows/main.json': new TextEncoder().encode(text) }));
}

/** A flow of `count` chained `trim` nodes (and `extraEdges` more edges between the first two). */
function longFlow(id: string, count: number, extraEdges = 0): Buffer {
  const nodes = [node({ id: 'start', type: 'on_flow_start', outputs: ['s'] })];
  const links = ['start -> end', 'start.s -> t0.text'];
  for (let i = 0; i < count; i++) {
    nodes.push(node({ id: `t${i}`, type: 'trim', inputs: ['text'], outputs: ['result'] }));
    if (i) links.push(`t${i - 1}.result -> t${i}.text`);
  }
  nodes.push(node({ id: 'end', type: 'on_flow_end', inputs: ['v'] }));
  links.push(`t${count - 1}.result -> end.v`);
  for (let i = 0; i < extraEdges; i++) links.push('start.s -> t0.text');
  return bundle(id, '1.0.0', { id: 'main', nodes, edges: edges(...links) });
}

function flowFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.flow')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

describe('bundle limits: zip bombs and entry counts are refused while inflating (HTTP)', function () {
  this.timeout(180_000);
  const data = tempDir('keel-bundle-limits-');
  let k: TestKernel;
  let bob: string;
  const boot = (bundleLimits?: Record<string, number>) =>
    createTestKernel({ dataDir: data.dir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: bundleLimits ? { bundleLimits } : {} }] });
  const upload = (bytes: Buffer, token: string, url = '/api/gateway/bundles/upload', fields: Record<string, string> = {}) => {
    const body = multipart(fields, { name: 'x.flow', bytes });
    return k.inject({ method: 'POST', url, token, payload: body.payload, headers: body.headers });
  };
  const listed = async (token: string) =>
    (await k.inject({ method: 'GET', url: '/api/gateway/bundles', token })).json<{ items: Array<{ bundle_id: string }> }>().items.map((i) => i.bundle_id);

  before(async () => {
    k = await boot();
    bob = (await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } })).json<{ token: { token: string } }>().token.token;
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  it('refuses a zip bomb from a non-admin with 413 and a sentence, and stores nothing', async () => {
    const bomb = zipBomb('bomb');
    expect(bomb.length).to.be.below(1024 * 1024);
    const before = flowFiles(k.dataDir).length;
    const res = await upload(bomb, bob);
    expect(res.statusCode).to.equal(413);
    const detail = res.json<{ detail: { reason_code: string; message: string; field: string } }>().detail;
    expect(detail.reason_code).to.equal('bundle_too_large');
    expect(detail.field).to.equal('body.file');
    expect(detail.message).to.match(/inflates to more than 16 MiB, the most a bundle may hold \(gateway-runs setting bundleLimits\.maxInflatedBytes\)/);
    expect(flowFiles(k.dataDir).length).to.equal(before);
    expect(await listed(bob)).to.not.include('bomb');
  });

  it('refuses the same bomb on the catalog upload with 413 and records nothing', async () => {
    const res = await upload(zipBomb('bomb-cat'), k.adminToken, '/api/gateway/admin/workflow-catalog/upload');
    expect(res.statusCode).to.equal(413);
    expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('bundle_too_large');
    const items = (await k.inject({ method: 'GET', url: '/api/gateway/workflow-catalog', token: k.adminToken })).json<{ items: Array<{ bundle_id: string }> }>().items;
    expect(items.map((i) => i.bundle_id)).to.not.include('bomb-cat');
  });

  it('refuses an archive with more entries than allowed with 400 naming the limit', async () => {
    const res = await upload(manyEntries('crowd', 600), bob);
    expect(res.statusCode).to.equal(400);
    const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('invalid_bundle');
    expect(detail.message).to.match(/more than 500 entries, the most a bundle may have \(gateway-runs setting bundleLimits\.maxEntries\)/);
    expect(await listed(bob)).to.not.include('crowd');
  });

  it('refuses bytes that are not a zip, and a truncated zip, with 400', async () => {
    for (const bytes of [Buffer.from('this is not a zip archive at all'), Buffer.from(simpleBundle('cut')).subarray(0, 120)]) {
      const res = await upload(bytes, bob);
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('invalid_bundle');
    }
  });

  it('refuses a flow nested 100,000 arrays deep with 400 naming the limit (it used to upload, start, then stick in running on a stack overflow)', async () => {
    for (const [url, token] of [['/api/gateway/bundles/upload', bob], ['/api/gateway/admin/workflow-catalog/upload', k.adminToken]] as const) {
      const res = await upload(deepFlow('deep', 100_000), token, url);
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(400);
      const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
      expect(detail.reason_code).to.equal('invalid_bundle');
      expect(detail.message).to.contain('flows/main.json nests arrays and objects more than 128 levels deep (gateway-runs setting bundleLimits.maxJsonDepth)');
    }
    expect(await listed(bob)).to.not.include('deep');
    // Depth within the limit is an ordinary flow.
    expect((await upload(deepFlow('deep-ok', 100), bob)).statusCode).to.equal(201);
  });

  it('refuses a flow with more nodes or edges than allowed with 400 naming the setting (a 40,000-node chain held the event loop for over 10 s)', async () => {
    const cases = [
      [longFlow('wide', 40_000), 'flows/main.json has 40002 nodes, more than the 2000 one flow may have (gateway-runs setting bundleLimits.maxFlowNodes)'],
      [longFlow('tangled', 10, 8_000), 'flows/main.json has 8012 edges, more than the 8000 one flow may have (gateway-runs setting bundleLimits.maxFlowEdges)'],
    ] as const;
    for (const [bytes, message] of cases) {
      for (const [url, token] of [['/api/gateway/bundles/upload', bob], ['/api/gateway/admin/workflow-catalog/upload', k.adminToken]] as const) {
        const res = await upload(bytes, token, url);
        expect(res.statusCode, `${url}: ${res.body}`).to.equal(400);
        const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
        expect(detail.reason_code).to.equal('invalid_bundle');
        expect(detail.message).to.contain(message);
      }
    }
    expect(await listed(bob)).to.not.include.members(['wide', 'tangled']);
    expect((await upload(longFlow('long-ok', 1_990), bob)).statusCode).to.equal(201);
  });

  it('refuses malformed nodes and edges with 400 naming the place (they were TypeErrors from inside the compiler)', async () => {
    const manifest = (id: string) => ({ bundle_format_version: '1', bundle_id: id, bundle_version: '1.0.0', entrypoints: [{ flow_id: 'main' }], flows: { main: 'flows/main.json' } });
    const cases = [
      [{ id: 'main', nodes: [null], edges: [] }, 'flows/main.json: nodes[0] must be an object with a non-empty string id'],
      [{ id: 'main', nodes: [{ id: 'start', type: 'on_flow_start' }], edges: [] }, "flows/main.json: nodes[0] ('start') must have a data object"],
      [{ id: 'main', nodes: [node({ id: 'start', type: 'on_flow_start' })], edges: [7] }, 'flows/main.json: edges[0] must be an object with string source and target'],
      [{ id: 'main', nodes: 'start', edges: [] }, 'flows/main.json: nodes must be a list'],
      [[1, 2], 'flows/main.json must hold a JSON object (a VisualFlow)'],
    ] as const;
    for (const [i, [flow, message]] of cases.entries()) {
      const bytes = Buffer.from(zipSync({ 'manifest.json': enc(manifest(`bad-shape-${i}`)), 'flows/main.json': enc(flow) }));
      const res = await upload(bytes, bob);
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json<{ detail: { message: string } }>().detail.message).to.contain(message);
    }
  });

  it('still accepts ordinary bundles', async () => {
    expect((await upload(simpleBundle('fine'), bob)).statusCode).to.equal(201);
    expect(await listed(bob)).to.include('fine');
  });

  it('after a restart, a stored bomb and a bundle over lowered limits are skipped, and the rest still list', async () => {
    // A bundle of ~2 MiB inflated (accepted under the defaults), then a bomb planted next to it as
    // if an older server had stored it.
    expect((await upload(simpleBundle('roomy', '1.0.0', 'x'.repeat(2 * 1024 * 1024)), bob)).statusCode).to.equal(201);
    expect(await listed(bob)).to.include('roomy');
    expect((await upload(simpleBundle('roomy-cat', '1.0.0', 'y'.repeat(2 * 1024 * 1024)), k.adminToken, '/api/gateway/admin/workflow-catalog/upload')).statusCode).to.equal(201);
    const bobDir = path.dirname(flowFiles(k.dataDir).find((f) => f.includes('fine@1.0.0'))!);
    writeFileSync(path.join(bobDir, 'bomb@1.0.0.flow'), zipBomb('bomb'));
    await k.stop();
    k = await boot({ maxInflatedBytes: 1024 * 1024 });
    const names = await listed(bob);
    expect(names).to.include('fine');
    expect(names).to.not.include('roomy');
    expect(names).to.not.include('bomb');
    expect((await k.inject({ method: 'GET', url: '/api/gateway/bundles', token: bob })).statusCode).to.equal(200);
    // A catalog version published under the old limits answers 409 with the reason, never a 500.
    const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { registry_scope: 'tenant_catalog', bundle_id: 'roomy-cat' } });
    expect(start.statusCode, start.body).to.equal(409);
    const detail = start.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('catalog_bundle_unreadable');
    expect(detail.message).to.match(/cannot be read within this gateway's bundle limits .*raise bundleLimits/);
    const inspect = await k.inject({ method: 'GET', url: '/api/gateway/workflow-catalog/roomy-cat/versions/1.0.0/flows/main', token: k.adminToken });
    expect(inspect.statusCode, inspect.body).to.equal(409);
    expect((await k.inject({ method: 'GET', url: '/api/gateway/workflow-catalog', token: k.adminToken })).statusCode).to.equal(200);
  });
});
