/**
 * Browser sign-in in a real browser (Debian's chromium through playwright-core): a page of Keel's
 * own origin signs in with a token, reads /api/gateway/me by the cookie alone (which its script
 * cannot see), needs the CSRF header to write, and signs out; a page of another site gets nothing.
 * Skipped with a sentence when the chromium package is not installed.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';

const CHROMIUM = process.env.KEEL_CHROMIUM ?? '/usr/bin/chromium';

interface Answer { status: number; body: Record<string, unknown> }

describe('signin: a real browser signs in with the cookie', function () {
  let kernel: TestKernel;
  let browser: Browser;
  let url: string;
  let port: number;
  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      (skipped: no Chromium at ${CHROMIUM}; install Debian's chromium package or set KEEL_CHROMIUM)`);
      this.skip();
    }
    kernel = await createTestKernel();
    ({ url, port } = await kernel.listen());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    await kernel?.stop();
  });

  it('signs in, reads /api/gateway/me by the HttpOnly cookie, writes only with X-Keel-CSRF, and signs out', async () => {
    const token = await createAccount(kernel, 'web');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${url}/api/gateway/about`);
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      page.evaluate(async ({ method, path, body, headers }) => {
        const res = await fetch(path, { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) as Record<string, unknown> : {} } satisfies Answer;
      }, { method, path, body, headers });

    expect((await call('GET', '/api/gateway/me')).status).to.equal(401);
    const login = await call('POST', '/api/gateway/session/login', { token });
    expect(login.status, JSON.stringify(login.body)).to.equal(200);
    const csrf = String(login.body.csrf_token);

    const me = await call('GET', '/api/gateway/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ account: 'web', via: 'session' });
    // HttpOnly: the page's script never sees the session id.
    expect(await page.evaluate<string>('document.cookie')).to.equal('');
    const stored = await context.cookies(url);
    expect(stored).to.have.length(1);
    expect(stored[0]).to.include({ name: 'keel_session', httpOnly: true, sameSite: 'Strict', path: '/' });

    expect((await call('PUT', '/api/gateway/accounts/me/preferences', { preferences: { theme: 'dark' } })).status).to.equal(403);
    const written = await call('PUT', '/api/gateway/accounts/me/preferences', { preferences: { theme: 'dark' } }, { 'x-keel-csrf': csrf });
    expect(written.status, JSON.stringify(written.body)).to.equal(200);

    expect((await call('POST', '/api/gateway/session/logout', {}, { 'x-keel-csrf': csrf })).body).to.include({ signed_out: true });
    expect((await call('GET', '/api/gateway/me')).status).to.equal(401);
    expect(await context.cookies(url)).to.have.length(0);
    await context.close();
  });

  it('a page of another site cannot use the sign-in: SameSite=Strict keeps the cookie home', async () => {
    const token = await createAccount(kernel, 'web2');
    const context = await browser.newContext();
    const home = await context.newPage();
    await home.goto(`${url}/api/gateway/about`);
    const login = await home.evaluate(async (t) => (await fetch('/api/gateway/session/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: t }) })).status, token);
    expect(login).to.equal(200);
    // localhost is another site than 127.0.0.1 for the browser, though it reaches the same server.
    const other = await context.newPage();
    await other.goto(`http://localhost:${port}/api/gateway/about`);
    const status = await other.evaluate(async (target) => {
      try {
        return (await fetch(`${target}/api/gateway/me`, { credentials: 'include' })).status;
      } catch {
        return 0; // refused by CORS: the browser never hands the answer to the page
      }
    }, url);
    expect(status).to.be.oneOf([0, 401, 403]);
    await context.close();
  });
});
