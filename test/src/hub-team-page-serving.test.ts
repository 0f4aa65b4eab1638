/**
 * The team page as the hub plugin serves it under `/hub/ui/`: the redirect, index.html with its
 * import map and CSP, the page and client modules and styles with their types and caching, and
 * nothing else of either package (raw paths, so `..` and encoded separators reach the server).
 */
import { expect } from 'chai';
import type { HubHarness } from './helpers/hub.js';
import { rawGet, startServedHub } from './helpers/team-page.js';

describe('team page serving (GET /hub/ui…)', () => {
  let hub: HubHarness;
  let base: string;

  before(async () => {
    ({ hub, base } = await startServedHub());
  });
  after(() => hub?.stop());

  it('redirects /hub/ui to /hub/ui/ and serves index.html with its import map, nosniff and a CSP', async () => {
    const redirect = await rawGet(base, '/hub/ui');
    expect(redirect.status).to.equal(302);
    expect(new URL(redirect.headers.location!, `${base}/hub/ui`).pathname).to.equal('/hub/ui/');
    const page = await rawGet(base, '/hub/ui/');
    expect(page.status).to.equal(200);
    expect(page.headers['content-type']).to.match(/^text\/html/);
    expect(page.headers['x-content-type-options']).to.equal('nosniff');
    expect(page.headers['cache-control']).to.equal('no-cache');
    expect(page.headers['content-security-policy']).to.match(/script-src 'self' 'sha256-/);
    // Attachment images are fetched with the seat key and shown from blob: URLs; nothing else is widened.
    expect(page.headers['content-security-policy']).to.include("img-src 'self' data: blob:");
    expect(page.headers['content-security-policy']).to.include("default-src 'none'");
    expect(page.body).to.include('"@keel/hub-client": "./client/index.js"');
    expect(page.body).to.include('./dist/main.js');
  });

  it('serves the page modules, the styles and the hub client modules with their types', async () => {
    for (const [url, type] of [
      ['/hub/ui/dist/main.js', /^text\/javascript/],
      ['/hub/ui/dist/team-page.js', /^text\/javascript/],
      ['/hub/ui/styles/full.css', /^text\/css/],
      ['/hub/ui/styles/components.css', /^text\/css/],
      ['/hub/ui/styles/theme.css', /^text\/css/],
      ['/hub/ui/client/index.js', /^text\/javascript/],
      ['/hub/ui/client/hub-client.js', /^text\/javascript/],
      ['/hub/ui/favicon.svg', /^image\/svg\+xml/],
    ] as const) {
      const res = await rawGet(base, url);
      expect(res.status, url).to.equal(200);
      expect(res.headers['content-type'], url).to.match(type);
      expect(res.headers['x-content-type-options'], url).to.equal('nosniff');
      expect(res.headers['cache-control'], url).to.match(/max-age=\d+/);
    }
    // The icon is an image of this origin: opened on its own it may run and load nothing.
    expect((await rawGet(base, '/hub/ui/favicon.svg')).headers['content-security-policy']).to.equal("default-src 'none'; style-src 'unsafe-inline'");
    const first = await rawGet(base, '/hub/ui/dist/main.js');
    const again = await rawGet(base, '/hub/ui/dist/main.js', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).to.equal(304);
  });

  it('serves nothing else of either package and never leaves their folders', async () => {
    for (const url of [
      '/hub/ui/package.json', '/hub/ui/src/team-page.ts', '/hub/ui/tsconfig.json', '/hub/ui/dist/', '/hub/ui/dist/index.d.ts',
      '/hub/ui/client/../package.json', '/hub/ui/client/%2e%2e/package.json', '/hub/ui/dist/..%2F..%2F..%2Fpackage.json',
      '/hub/ui/styles/%2e%2e%2f%2e%2e%2ftsconfig.json', '/hub/ui/dist/missing.js', '/hub/ui/client/index.d.ts', '/hub/ui/dist/a%00.js',
      '/hub/ui/styles/..%5c..%5cpackage.json',
    ]) {
      const res = await rawGet(base, url);
      expect([400, 404], `${url} → ${res.status}`).to.include(res.status);
      expect(res.body, url).not.to.include('"name"');
    }
  });
});
