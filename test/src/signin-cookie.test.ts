/**
 * Browser sign-in through the HTTP API with a cookie jar (seed 000 §4.10, §5): login, the cookie as
 * an alternative to the bearer header, CSRF and origin rules, logout, expiry, and revocation.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';
import { TestBrowser } from './helpers/signin-browser.js';
import { until } from './helpers/until.js';

type Detail = { detail: { reason_code: string; message: string } };

describe('signin: browser sign-in with a session cookie', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { origins: ['https://app.example.com'], authFailures: { burst: 100 }, signin: { sessionsPerAccount: 2 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('login answers an HttpOnly, SameSite=Strict, Path=/ cookie (not Secure on plain HTTP) and a CSRF token, never the token', async () => {
    const token = await createAccount(kernel, 'ann');
    const browser = new TestBrowser(url);
    const answer = await browser.login(token);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body).to.include({ account: 'ann', is_admin: false, via: 'login', csrf_header: 'X-Keel-CSRF' });
    expect(answer.body.csrf_token).to.be.a('string').with.length.above(30);
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(answer.setCookies).to.have.length(1);
    const cookie = answer.setCookies[0]!;
    expect(cookie).to.match(/^keel_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).to.match(/; HttpOnly/).and.match(/; SameSite=Strict/).and.match(/; Path=\//).and.match(/; Max-Age=28800/);
    expect(cookie).not.to.match(/Secure/);
    expect(cookie).not.to.contain(token);
    expect(JSON.stringify(answer.body)).not.to.contain(token);
  });

  it('the cookie signs in a GET where the bearer header would (/me says via: session)', async () => {
    const token = await createAccount(kernel, 'ben');
    const browser = new TestBrowser(url);
    expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(401);
    await browser.login(token);
    const me = await browser.request('GET', '/api/gateway/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ account: 'ben', via: 'session' });
    expect(me.body.session_expires_at).to.be.a('string');
    // A route no one matched still needs a sign-in, and the cookie is one.
    expect((await browser.request('GET', '/api/gateway/no-such-route')).status).to.equal(404);
    expect((await new TestBrowser(url).request('GET', '/api/gateway/no-such-route')).status).to.equal(401);
  });

  it('refuses an unsafe request signed by the cookie without the CSRF header, or with a wrong one; passes it with the right one', async () => {
    const browser = new TestBrowser(url);
    await browser.login(await createAccount(kernel, 'cid'));
    const put = (headers: Record<string, string> = {}, csrf = true) => browser.request('PUT', '/api/gateway/accounts/me/preferences', { body: { preferences: { theme: 'dark' } }, headers, csrf });
    const missing = await put({}, false);
    expect(missing.status).to.equal(403);
    expect((missing.body as unknown as Detail).detail.reason_code).to.equal('csrf_token_missing');
    const wrong = await put({ 'x-keel-csrf': 'A'.repeat(43) });
    expect(wrong.status).to.equal(403);
    expect((wrong.body as unknown as Detail).detail.reason_code).to.equal('csrf_token_mismatch');
    // Another session's token is a wrong one too.
    const other = new TestBrowser(url);
    await other.login(await createAccount(kernel, 'cid2'));
    expect((await put({ 'x-keel-csrf': other.csrf! })).status).to.equal(403);
    expect((await browser.request('GET', '/api/gateway/accounts/me/preferences')).body.preferences).to.deep.equal({});
    const ok = await put();
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.preferences).to.deep.equal({ theme: 'dark' });
    // Logout is unsafe too: a page of another site cannot sign the user out.
    expect((await browser.request('POST', '/api/gateway/session/logout', { body: {}, csrf: false })).status).to.equal(403);
    expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(200);
  });

  it('refuses cross-origin and cross-site requests that carry the cookie, even with the CSRF token', async () => {
    const browser = new TestBrowser(url);
    await browser.login(await createAccount(kernel, 'dee'));
    const foreign = await browser.request('PUT', '/api/gateway/accounts/me/preferences', { body: { preferences: { a: 1 } }, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).to.equal(403);
    expect((foreign.body as unknown as Detail).detail.reason_code).to.equal('origin_not_allowed');
    const crossSite = await browser.request('GET', '/api/gateway/me', { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.status).to.equal(403);
    expect((crossSite.body as unknown as Detail).detail.reason_code).to.equal('cross_site_request');
    const crossSitePut = await browser.request('PUT', '/api/gateway/accounts/me/preferences', { body: { preferences: { a: 1 } }, headers: { 'sec-fetch-site': 'cross-site' } });
    expect(crossSitePut.status).to.equal(403);
    // A login started from another site's page (login CSRF) is refused too.
    const token = await createAccount(kernel, 'dee2');
    expect((await new TestBrowser(url, 'https://evil.example').login(token)).status).to.equal(403);
    expect((await new TestBrowser(url).request('POST', '/api/gateway/session/login', { body: { token }, headers: { 'sec-fetch-site': 'cross-site' } })).status).to.equal(403);
    // The listed origin may send the cookie along (CORS with credentials), and only it.
    const listed = await browser.request('GET', '/api/gateway/me', { headers: { origin: 'https://app.example.com', 'sec-fetch-site': 'same-site' } });
    expect(listed.status).to.equal(200);
    expect(listed.headers.get('access-control-allow-credentials')).to.equal('true');
  });

  it('a JSON login body sent as a form (text/plain) is refused', async () => {
    const token = await createAccount(kernel, 'eve');
    const res = await fetch(`${url}/api/gateway/session/login`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: url }, body: JSON.stringify({ token }) });
    expect(res.status).to.equal(400);
    expect(res.headers.getSetCookie()).to.deep.equal([]);
  });

  it('the bearer header wins over the cookie: a bad bearer with a good cookie is 401', async () => {
    const browser = new TestBrowser(url);
    await browser.login(await createAccount(kernel, 'fay'));
    const res = await browser.request('GET', '/api/gateway/me', { headers: { authorization: 'Bearer keel_not-a-token' } });
    expect(res.status).to.equal(401);
  });

  it('logout ends the session on the server: the old cookie replayed is refused (and cleared)', async () => {
    const browser = new TestBrowser(url);
    await browser.login(await createAccount(kernel, 'gus'));
    const stolen = browser.sessionCookie();
    const out = await browser.request('POST', '/api/gateway/session/logout', { body: {} });
    expect(out.status).to.equal(200);
    expect(out.body).to.deep.equal({ signed_out: true, sessions_ended: 1 });
    expect(out.setCookies[0]).to.match(/^keel_session=; .*Max-Age=0/);
    expect(browser.jar.cookies.size).to.equal(0);
    const replay = await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${stolen}` } });
    expect(replay.status).to.equal(401);
    expect(((await replay.json()) as Detail).detail.reason_code).to.equal('session_ended');
    expect(replay.headers.getSetCookie()[0]).to.match(/^keel_session=; .*Max-Age=0/);
  });

  it('logout with everywhere: true ends every session of the account', async () => {
    const token = await createAccount(kernel, 'hal');
    const a = new TestBrowser(url);
    const b = new TestBrowser(url);
    await a.login(token);
    await b.login(token);
    const out = await a.request('POST', '/api/gateway/session/logout', { body: { everywhere: true } });
    expect(out.body).to.deep.equal({ signed_out: true, sessions_ended: 2 });
    expect((await b.request('GET', '/api/gateway/me')).status).to.equal(401);
  });

  it('a new sign-in beyond server.signin.sessionsPerAccount ends the oldest session', async () => {
    const token = await createAccount(kernel, 'ida');
    const browsers = [new TestBrowser(url), new TestBrowser(url), new TestBrowser(url)];
    for (const b of browsers) expect((await b.login(token)).status).to.equal(200);
    expect((await browsers[0]!.request('GET', '/api/gateway/me')).status).to.equal(401);
    expect((await browsers[1]!.request('GET', '/api/gateway/me')).status).to.equal(200);
    expect((await browsers[2]!.request('GET', '/api/gateway/me')).status).to.equal(200);
  });

  it('a sign-in replaces the session the browser held (no fixation of an old id)', async () => {
    const token = await createAccount(kernel, 'jon');
    const browser = new TestBrowser(url);
    await browser.login(token);
    const first = browser.sessionCookie();
    await browser.login(token);
    expect(browser.sessionCookie()).not.to.equal(first);
    expect((await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${first}` } })).status).to.equal(401);
  });

  it('suspending the account ends its sessions; restoring it does not bring them back', async () => {
    const token = await createAccount(kernel, 'kim');
    const browser = new TestBrowser(url);
    await browser.login(token);
    const stolen = browser.sessionCookie();
    const suspend = await kernel.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/kim/active', token: kernel.adminToken, payload: { active: false } });
    expect(suspend.statusCode, suspend.body).to.equal(200);
    expect(suspend.json()).to.include({ account: 'kim', active: false, changed: true, session_count: 0 });
    expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(401);
    expect((await kernel.inject({ url: '/api/gateway/me', token })).statusCode).to.equal(401);
    expect((await new TestBrowser(url).login(token)).status).to.equal(401);
    const restore = await kernel.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/kim/active', token: kernel.adminToken, payload: { active: true } });
    expect(restore.json()).to.include({ active: true, changed: true });
    expect((await kernel.inject({ url: '/api/gateway/me', token })).statusCode).to.equal(200);
    expect((await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${stolen}` } })).status).to.equal(401);
  });

  it('disabling the account (DELETE /admin/users) and revoking the token end the sessions they stood on', async () => {
    const created = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'lou' } });
    const { token, token_id: tokenId } = created.json<{ token: { token: string; token_id: string } }>().token;
    const second = (await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users/lou/tokens', token: kernel.adminToken, payload: {} })).json<{ token: string }>().token;
    const onFirst = new TestBrowser(url);
    const onSecond = new TestBrowser(url);
    await onFirst.login(token);
    await onSecond.login(second);
    const revoked = await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/lou/tokens/${tokenId}`, token: kernel.adminToken });
    expect(revoked.statusCode).to.equal(204);
    expect((await onFirst.request('GET', '/api/gateway/me')).status).to.equal(401);
    expect((await onSecond.request('GET', '/api/gateway/me')).status).to.equal(200);
    expect((await kernel.inject({ method: 'DELETE', url: '/api/gateway/admin/users/lou', token: kernel.adminToken })).statusCode).to.equal(200);
    expect((await onSecond.request('GET', '/api/gateway/me')).status).to.equal(401);
  });

  it('a forged or malformed cookie is refused with 401 and cleared from the browser', async () => {
    for (const value of ['A'.repeat(43), 'not-a-session', '../../etc/passwd']) {
      const res = await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${encodeURIComponent(value)}` } });
      expect(res.status, value).to.equal(401);
      expect(res.headers.getSetCookie()[0], value).to.match(/Max-Age=0/);
    }
  });

  it('GET /session shows the browser session and its CSRF token again; a bearer caller has none', async () => {
    const token = await createAccount(kernel, 'max');
    const browser = new TestBrowser(url);
    const login = await browser.login(token);
    const again = await browser.request('GET', '/api/gateway/session');
    expect(again.status).to.equal(200);
    expect(again.body.csrf_token).to.equal(login.body.csrf_token);
    expect(again.body).to.include({ account: 'max', via: 'login' });
    const bearer = await kernel.inject({ url: '/api/gateway/session', token });
    expect(bearer.statusCode).to.equal(403);
    expect(bearer.json<Detail>().detail.reason_code).to.equal('no_browser_session');
  });

  it('an admin signed in by cookie reaches admin routes; an admin route refuses a non-admin cookie with 403', async () => {
    const admin = new TestBrowser(url);
    await admin.login(kernel.adminToken);
    expect((await admin.request('GET', '/api/gateway/admin/accounts')).status).to.equal(200);
    const user = new TestBrowser(url);
    await user.login(await createAccount(kernel, 'ned'));
    expect((await user.request('GET', '/api/gateway/admin/accounts')).status).to.equal(403);
    expect((await user.request('PUT', '/api/gateway/admin/accounts/ned/active', { body: { active: false } })).status).to.equal(403);
  });

  it('lists the sign-in routes in /openapi.json', async () => {
    const doc = (await kernel.inject({ url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    for (const p of ['/api/gateway/session/login', '/api/gateway/session/logout', '/api/gateway/session/claim', '/api/gateway/session/codes', '/api/gateway/session']) {
      expect(doc.paths, p).to.have.property(p);
    }
  });
});

describe('signin: session lifetime', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { signin: { sessionTtlMs: 1000 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('an expired session is refused on the server, whatever the browser keeps', async () => {
    const token = await createAccount(kernel, 'old');
    const browser = new TestBrowser(url);
    const login = await browser.login(token);
    expect(login.setCookies[0]).to.match(/Max-Age=1;/);
    const cookie = browser.sessionCookie();
    const refused = await until(async () => (await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${cookie}` } })).status, {
      what: 'the session to expire',
      ok: (status) => status === 401,
    });
    expect(refused).to.equal(401);
  });

});

describe('signin: failed sign-ins', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { authFailures: { burst: 3, windowMs: 600_000 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('a login with a bad token counts as a failed sign-in: after the burst even a good token is 429', async () => {
    const token = await createAccount(kernel, 'tom');
    const browser = new TestBrowser(url);
    for (let i = 0; i < 3; i++) {
      const bad = await browser.login(`keel_wrong-${i}`);
      expect(bad.status).to.equal(401);
      expect(bad.setCookies).to.deep.equal([]);
    }
    const throttled = await browser.login(token);
    expect(throttled.status).to.equal(429);
    expect(throttled.headers.get('retry-after')).to.match(/^\d+$/);
    expect((throttled.body as unknown as Detail).detail.reason_code).to.equal('too_many_auth_failures');
    // The same source's bearer requests are throttled too: one counter for every way of signing in.
    expect((await kernel.inject({ url: '/api/gateway/me', token })).statusCode).to.equal(429);
  });
});

describe('signin: the cookie behind TLS', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { signin: { secureCookie: 'always' } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('with server.signin.secureCookie always, the cookie is Secure and named __Host- (no subdomain can plant it)', async () => {
    const browser = new TestBrowser(url);
    const login = await browser.login(await createAccount(kernel, 'tls'));
    expect(login.setCookies[0]).to.match(/^__Host-keel_session=[A-Za-z0-9_-]{43}; Path=\/; .*HttpOnly; SameSite=Strict; Secure$/);
    expect((await browser.request('GET', '/api/gateway/me')).body).to.include({ account: 'tls', via: 'session' });
    const out = await browser.request('POST', '/api/gateway/session/logout', { body: {} });
    expect(out.setCookies[0]).to.match(/^__Host-keel_session=; .*Max-Age=0.*; Secure$/);
  });

  it('a sign-in body larger than a token could be is refused with 413 before it is read whole', async () => {
    const res = await new TestBrowser(url).request('POST', '/api/gateway/session/login', { body: { token: 'x'.repeat(20_000) } });
    expect(res.status).to.equal(413);
  });
});

describe('signin: a session stands on its token across a restart', () => {
  it('replacing the bootstrap admin token (a new admin.token at restart) ends the sessions the old one signed in', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keel-signin-'));
    try {
      let kernel = await createTestKernel({ dataDir });
      let { url } = await kernel.listen();
      const browser = new TestBrowser(url);
      expect((await browser.login(kernel.adminToken)).status).to.equal(200);
      const cookie = browser.sessionCookie();
      await kernel.stop();
      // The admin rotates the token: a new file is made at the next start, under the same token id.
      rmSync(path.join(dataDir, 'auth', 'admin.token'));
      kernel = await createTestKernel({ dataDir });
      ({ url } = await kernel.listen());
      try {
        const replay = await fetch(`${url}/api/gateway/me`, { headers: { cookie: `keel_session=${cookie}` } });
        expect(replay.status).to.equal(401);
        const fresh = new TestBrowser(url);
        expect((await fresh.login(kernel.adminToken)).status).to.equal(200);
        expect((await fresh.request('GET', '/api/gateway/me')).status).to.equal(200);
      } finally {
        await kernel.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('signin: server.origins "*" never extends to the cookie', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { origins: ['*'] } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('any page may call with a token, but no foreign page is signed in by the cookie, and no CORS answer allows credentials', async () => {
    const token = await createAccount(kernel, 'wil');
    const browser = new TestBrowser(url);
    await browser.login(token);
    const foreign = await browser.request('GET', '/api/gateway/me', { headers: { origin: 'https://anywhere.example', 'sec-fetch-site': 'cross-site' } });
    expect(foreign.status).to.equal(403);
    const noFetchMetadata = await browser.request('GET', '/api/gateway/me', { headers: { origin: 'https://anywhere.example', 'sec-fetch-site': '' } });
    expect(noFetchMetadata.status).to.equal(403);
    expect((noFetchMetadata.body as unknown as Detail).detail.reason_code).to.equal('origin_not_allowed');
    expect(noFetchMetadata.headers.get('access-control-allow-credentials')).to.equal(null);
    const bearer = await fetch(`${url}/api/gateway/me`, { headers: { origin: 'https://anywhere.example', authorization: `Bearer ${token}` } });
    expect(bearer.status).to.equal(200);
    expect(bearer.headers.get('access-control-allow-credentials')).to.equal(null);
    // The server's own origin is still the server's own.
    expect((await browser.request('GET', '/api/gateway/me', { headers: { origin: url } })).status).to.equal(200);
  });
});
