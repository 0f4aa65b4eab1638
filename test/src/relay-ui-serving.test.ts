/**
 * The relay status page as files: served on the `ui` mount at `/relay/ui/` with a strict CSP (no
 * inline script or style, no other origin), only the page's own files (no sources, maps, manifests,
 * nothing outside the folder), `api.json` naming where `/v1` is mounted, and a link on the landing
 * page. `ui.enabled: false` serves none of it.
 */
import { expect } from 'chai';
import { startRelay, type RelayUiHarness } from './helpers/relay-ui.js';
import { rawGet } from './helpers/team-page.js';

describe('relay status page: serving', function () {
  this.timeout(60_000);
  let relay: RelayUiHarness;
  let base: string;

  before(async () => {
    relay = await startRelay();
    base = (await relay.kernel.listen()).url;
  });
  after(async () => relay?.stop());

  it('GET /relay/ui redirects to /relay/ui/, which is the page with a strict CSP', async () => {
    const redirect = await relay.kernel.inject({ url: '/relay/ui' });
    expect(redirect.statusCode).to.equal(302);
    expect(redirect.headers.location).to.equal('ui/');
    const page = await relay.kernel.inject({ url: '/relay/ui/' });
    expect(page.statusCode).to.equal(200);
    expect(page.headers['content-type']).to.equal('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).to.include("default-src 'none'").and.include("script-src 'self'").and.include("style-src 'self'")
      .and.include("connect-src 'self'").and.include("frame-ancestors 'none'").and.include("form-action 'none'");
    expect(csp).not.to.match(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.headers['x-frame-options']).to.equal('DENY');
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
    expect(page.headers['referrer-policy']).to.equal('no-referrer');
    // Nothing inline the CSP would block, nothing from another origin.
    expect(page.body).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(page.body).not.to.match(/\sstyle=|<style/i);
    expect(page.body).not.to.match(/(src|href)="(https?:)?\/\//i);
  });

  it('serves the compiled modules, the styles and the icon with their types', async () => {
    for (const [file, type] of [['dist/main.js', 'text/javascript; charset=utf-8'], ['dist/status-page.js', 'text/javascript; charset=utf-8'], ['styles/full.css', 'text/css; charset=utf-8'], ['styles/theme.css', 'text/css; charset=utf-8'], ['favicon.svg', 'image/svg+xml']]) {
      const res = await relay.kernel.inject({ url: `/relay/ui/${file}` });
      expect(res.statusCode, file).to.equal(200);
      expect(res.headers['content-type'], file).to.equal(type);
    }
    const icon = await relay.kernel.inject({ url: '/relay/ui/favicon.svg' });
    expect(icon.headers['content-security-policy']).to.equal("default-src 'none'; style-src 'unsafe-inline'");
  });

  it('refuses every other file of the folder and every way out of it (404)', async () => {
    const refused = [
      '/relay/ui/src/main.ts', '/relay/ui/tsconfig.json', '/relay/ui/dist/main.js.map', '/relay/ui/dist/main.d.ts',
      '/relay/ui/tsconfig.tsbuildinfo', '/relay/ui/../package.json', '/relay/ui/%2e%2e/package.json', '/relay/ui/dist/..%2f..%2fpackage.json',
      '/relay/ui/styles/../../src/index.ts', '/relay/ui/.hidden.js', '/relay/ui/dist/%2e%2e/%2e%2e/dist/index.js', '/relay/ui/dist/nope.js',
    ];
    for (const p of refused) {
      const res = await rawGet(base, p);
      expect(res.status, p).to.be.oneOf([400, 404]);
      expect(res.body, p).not.to.include('relayPlugin');
    }
  });

  it('GET /relay/ui/api.json names where the /v1 routes are mounted', async () => {
    const res = await relay.kernel.inject({ url: '/relay/ui/api.json' });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ api_base: '/v1' });
  });

  it('the landing page links the status page on its own mount (not under /v1)', async () => {
    const res = await relay.kernel.inject({ url: '/' });
    expect(res.body).to.include('href="/relay/ui/"');
    expect(res.body).not.to.include('/v1/ui/');
  });

  it('follows moved mounts: the page under the new ui prefix, api.json with the new /v1 prefix', async () => {
    const moved = await startRelay({ prefix: '/relay-api/v1', mounts: { ui: '/status' } });
    try {
      expect((await moved.kernel.inject({ url: '/status/ui/' })).statusCode).to.equal(200);
      expect((await moved.kernel.inject({ url: '/status/ui/api.json' })).json()).to.deep.equal({ api_base: '/relay-api/v1' });
      expect((await moved.kernel.inject({ url: '/' })).body).to.include('href="/status/ui/"');
    } finally {
      await moved.stop();
    }
  });

  it('ui.enabled false serves no page and links none', async () => {
    const off = await startRelay({ config: { ui: { enabled: false } } });
    try {
      expect((await off.kernel.inject({ url: '/relay/ui/' })).statusCode).to.equal(404);
      expect((await off.kernel.inject({ url: '/relay/ui/dist/main.js' })).statusCode).to.equal(404);
      expect((await off.kernel.inject({ url: '/' })).body).not.to.include('/relay/ui/');
    } finally {
      await off.stop();
    }
  });
});
