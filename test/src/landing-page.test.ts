import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { notesPlugin } from '@keel-examples/notes-plugin';
import { startServer } from './helpers/cli.js';
import { tempDir } from './helpers/paths.js';

/** The page at the address `keel serve` prints: what is loaded, where to go, how to get a token. */
describe('the landing page GET /', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [notesPlugin, hubPlugin], config: { server: { logLevel: 'silent' } } });
  });
  after(() => kernel.stop());

  it('answers HTML under a CSP that allows no script, no external asset and no framing', async () => {
    const res = await kernel.inject({ url: '/' });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).to.include("default-src 'none'").and.include("frame-ancestors 'none'").and.not.include('script-src');
    expect(res.headers['x-frame-options']).to.equal('DENY');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.body).to.not.match(/<script|<link|src="http|href="http/i);
  });

  it('names every loaded plugin with its version and links to the docs and the pages plugins declare', async () => {
    const res = await kernel.inject({ url: '/' });
    for (const [id, version] of [['core', '0.1.0'], ['notes', '0.1.0'], ['hub', '0.1.0']]) {
      expect(res.body).to.match(new RegExp(`<code>${id}</code></td><td>${version.replace(/\./g, '\\.')}</td>`));
    }
    const links = [...res.body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links).to.include.members(['/docs', '/openapi.json', '/hub/ui/', '/api/gateway/about']);
    // Every link it shows answers (the team page redirects nowhere else: it is the page itself).
    for (const link of new Set(links)) expect((await kernel.inject({ url: link })).statusCode, link).to.equal(200);
  });

  it('says where the admin token is without showing it or the real data path', async () => {
    const res = await kernel.inject({ url: '/' });
    expect(res.body).to.include('&lt;data&gt;/auth/admin.token').and.include('KEEL_ADMIN_TOKEN');
    expect(res.body).to.not.include(kernel.adminToken);
    expect(res.body).to.not.include(kernel.dataDir);
  });

  it('lists each plugin page under its own mount prefix, also in /api/gateway/about', async () => {
    const about = (await kernel.inject({ url: '/api/gateway/about' })).json<{ plugins: Array<{ id: string; pages: Array<{ path: string; title: string }> }> }>();
    expect(about.plugins.find((p) => p.id === 'hub')!.pages).to.deep.equal([{ path: '/hub/ui/', title: 'Team page' }]);
    expect(about.plugins.find((p) => p.id === 'notes')!.pages).to.deep.equal([]);
  });

  it('is what the address `keel serve` prints answers, with the default plugins and the team page', async function () {
    this.timeout(120_000);
    const tmp = tempDir();
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir]);
    try {
      expect(server.output()).to.contain(`Keel listening on ${server.url}`);
      const res = await fetch(`${server.url}/`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      const html = await res.text();
      for (const id of ['inference', 'ledger', 'gateway-runs', 'hub']) expect(html).to.contain(`<code>${id}</code>`);
      expect(html).to.contain('href="/hub/ui/"').and.not.contain(tmp.dir);
    } finally {
      await server.stop();
      tmp.remove();
    }
  });
});
