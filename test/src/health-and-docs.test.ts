import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { notesPlugin } from '@keel-examples/notes-plugin';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';

describe('health, about, OpenAPI and docs', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [probePlugin, notesPlugin] });
  });
  after(() => kernel.stop());

  it('GET /api/health needs no token and reports status, a live watchdog and the fields its plugins add (none here)', async () => {
    const res = await kernel.inject({ url: '/api/health' });
    expect(res.statusCode).to.equal(200);
    const body = res.json<{ status: string; watchdog: { enabled: boolean; limit_s: number; last_tick_age_s: number } }>();
    expect(Object.keys(body)).to.deep.equal(['status', 'watchdog']);
    expect(body.status).to.equal('ok');
    expect(body.watchdog.enabled).to.equal(true);
    expect(body.watchdog.limit_s).to.equal(10);
    expect(body.watchdog.last_tick_age_s).to.be.a('number').and.be.at.least(0).and.below(2);
  });

  it('GET /api/gateway/about needs no token and names the kernel and every loaded plugin with versions', async () => {
    const res = await kernel.inject({ url: '/api/gateway/about' });
    expect(res.statusCode).to.equal(200);
    const body = res.json<{ name: string; version: string; sdk_version: string; plugins: Array<{ id: string; version: string }> }>();
    expect(body.name).to.equal('keel');
    expect(body.version).to.match(/^\d+\.\d+\.\d+/);
    expect(body.sdk_version).to.equal('1.0.0');
    const versions = Object.fromEntries(body.plugins.map((p) => [p.id, p.version]));
    expect(versions).to.deep.include({ core: body.version, probe: '1.2.3', notes: '0.1.0' });
  });

  it('GET /openapi.json is OpenAPI 3.1 listing every route of every loaded plugin with its schemas', async () => {
    const res = await kernel.inject({ url: '/openapi.json' });
    expect(res.statusCode).to.equal(200);
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { required: string[] } }> }; parameters: Array<{ name: string; in: string }>; security: unknown[] }>>; components: { securitySchemes: Record<string, { scheme: string }> } }>();
    expect(doc.openapi).to.equal('3.1.0');
    const listed = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(listed).to.include.members([
      'GET /api/health', 'GET /api/gateway/about', 'GET /api/gateway/me', 'GET /api/gateway/admin/users', 'POST /api/gateway/admin/users',
      'GET /api/gateway/admin/users/{account}', 'POST /api/gateway/admin/users/{account}/tokens', 'DELETE /api/gateway/admin/users/{account}/tokens/{token_id}',
      'GET /openapi.json',
      'POST /api/gateway/probe/echo/{id}', 'GET /api/gateway/probe/events',
      'GET /api/notes', 'POST /api/notes/items', 'GET /api/notes/items/{id}', 'GET /api/notes/items/{id}/stats', 'DELETE /api/notes/items/{id}',
    ]);
    const echo = doc.paths['/api/gateway/probe/echo/{id}']!.post!;
    expect(echo.requestBody!.content['application/json']!.schema.required).to.deep.equal(['name', 'count']);
    expect(echo.parameters.map((p) => `${p.in}:${p.name}`)).to.deep.equal(['path:id', 'query:verbose']);
    expect(echo.security).to.deep.equal([{ bearerAuth: [] }]);
    expect(doc.paths['/api/health']!.get!.security).to.deep.equal([]);
    expect(doc.components.securitySchemes.bearerAuth!.scheme).to.equal('bearer');
  });

  it('GET /docs serves the interactive UI from the installed package, with its assets', async () => {
    const page = await kernel.inject({ url: '/docs' });
    expect(page.statusCode).to.equal(200);
    expect(page.headers['content-type']).to.match(/text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).to.include.members(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/keel-init.js']);
    for (const asset of assets) {
      const res = await kernel.inject({ url: asset });
      expect(res.statusCode, asset).to.equal(200);
      expect(res.rawPayload.length, asset).to.be.greaterThan(100);
    }
    const init = await kernel.inject({ url: '/docs/keel-init.js' });
    expect(init.body).to.contain("url: '/openapi.json'");
    expect((await kernel.inject({ url: '/docs/../../etc/passwd' })).statusCode).to.equal(404);
  });
});

describe('config/schema.json', () => {
  it('is the schema the kernel validates configs with (so editors and the kernel agree)', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { repoRoot } = await import('./helpers/paths.js');
    const { kernelConfigSchema } = await import('@keel/kernel');
    const onDisk = JSON.parse(readFileSync(path.join(repoRoot, 'config', 'schema.json'), 'utf8')) as Record<string, unknown>;
    delete onDisk.$schema;
    expect(onDisk).to.deep.equal(JSON.parse(JSON.stringify(kernelConfigSchema)));
  });
});
