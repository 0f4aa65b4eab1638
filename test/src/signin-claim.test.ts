/**
 * One-time sign-in codes (seed 000 §4.10 `/session/claim`): a bearer caller mints a code, a browser
 * claims it once for a session cookie. Replays, expiry, revocation and caps are refused.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';
import { TestBrowser } from './helpers/signin-browser.js';
import { until } from './helpers/until.js';

type Detail = { detail: { reason_code: string; message: string } };
interface Minted { code: string; expires_at: string; claim_path: string }

describe('signin: one-time sign-in codes', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { authFailures: { burst: 100 }, signin: { codesPerAccount: 2 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  const mint = (token: string) => kernel.inject({ method: 'POST', url: '/api/gateway/session/codes', token });

  it('a bearer caller mints a code a browser claims for a session cookie; the code works once', async () => {
    const token = await createAccount(kernel, 'cam');
    const minted = await mint(token);
    expect(minted.statusCode, minted.body).to.equal(201);
    const { code, claim_path: claimPath, expires_at: expiresAt } = minted.json<Minted>();
    expect(claimPath).to.equal('/api/gateway/session/claim');
    expect(Date.parse(expiresAt)).to.be.greaterThan(Date.now() - 5000);
    expect(minted.headers['cache-control']).to.equal('no-store');

    const browser = new TestBrowser(url);
    const claimed = await browser.claim(code);
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(200);
    expect(claimed.body).to.include({ account: 'cam', via: 'claim' });
    expect(claimed.setCookies[0]).to.match(/^keel_session=.*HttpOnly; SameSite=Strict/);
    expect((await browser.request('GET', '/api/gateway/me')).body).to.include({ account: 'cam', via: 'session' });

    const replay = await new TestBrowser(url).claim(code);
    expect(replay.status).to.equal(401);
    expect((replay.body as unknown as Detail).detail.reason_code).to.equal('invalid_code');
    expect(replay.setCookies).to.deep.equal([]);
  });

  it('two claims of one code racing: exactly one wins', async () => {
    const { code } = (await mint(await createAccount(kernel, 'duo'))).json<Minted>();
    const answers = await Promise.all([new TestBrowser(url).claim(code), new TestBrowser(url).claim(code), new TestBrowser(url).claim(code)]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 401, 401]);
  });

  it('a code whose minting token was revoked before the claim is refused', async () => {
    const created = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'rev' } });
    const { token, token_id: tokenId } = created.json<{ token: { token: string; token_id: string } }>().token;
    const { code } = (await mint(token)).json<Minted>();
    await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/rev/tokens/${tokenId}`, token: kernel.adminToken });
    expect((await new TestBrowser(url).claim(code)).status).to.equal(401);
  });

  it('a session from a claim ends when its minting token is revoked', async () => {
    const created = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'rev2' } });
    const { token, token_id: tokenId } = created.json<{ token: { token: string; token_id: string } }>().token;
    const browser = new TestBrowser(url);
    await browser.claim((await mint(token)).json<Minted>().code);
    expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(200);
    await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/rev2/tokens/${tokenId}`, token: kernel.adminToken });
    expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(401);
  });

  it('codes are minted with a bearer token only: a browser session cannot mint one, even with its CSRF token', async () => {
    const browser = new TestBrowser(url);
    await browser.login(await createAccount(kernel, 'brw'));
    const res = await browser.request('POST', '/api/gateway/session/codes');
    expect(res.status).to.equal(403);
    expect((res.body as unknown as Detail).detail.reason_code).to.equal('bearer_required');
    expect((await kernel.inject({ method: 'POST', url: '/api/gateway/session/codes' })).statusCode).to.equal(401);
  });

  it('an account holds at most server.signin.codesPerAccount unclaimed codes (429 beyond)', async () => {
    const token = await createAccount(kernel, 'cap');
    expect((await mint(token)).statusCode).to.equal(201);
    expect((await mint(token)).statusCode).to.equal(201);
    const third = await mint(token);
    expect(third.statusCode).to.equal(429);
    expect(third.json<Detail>().detail.reason_code).to.equal('too_many_signin_codes');
  });

  it('bad and hostile codes are refused without a cookie', async () => {
    for (const code of ['x', 'A'.repeat(43), '"; DROP', 'é'.repeat(100)]) {
      const res = await new TestBrowser(url).claim(code);
      expect(res.status, code).to.equal(401);
      expect(res.setCookies, code).to.deep.equal([]);
    }
    const long = await new TestBrowser(url).claim('A'.repeat(5000));
    expect(long.status).to.equal(400);
    const wrongType = await new TestBrowser(url).request('POST', '/api/gateway/session/claim', { body: { code: 42 } });
    expect(wrongType.status).to.equal(400);
  });
});

describe('signin: a wrong claim code counts as a failed sign-in', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { authFailures: { burst: 2, windowMs: 600_000 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('guessing codes is throttled: after the burst even a valid code is 429 and stays claimable later', async () => {
    const token = await createAccount(kernel, 'gus');
    const { code } = (await kernel.inject({ method: 'POST', url: '/api/gateway/session/codes', token })).json<Minted>();
    expect((await new TestBrowser(url).claim('guess-1')).status).to.equal(401);
    expect((await new TestBrowser(url).claim('guess-2')).status).to.equal(401);
    const throttled = await new TestBrowser(url).claim(code);
    expect(throttled.status).to.equal(429);
    // The throttled attempt did not consume the code: another source may still claim it.
    const elsewhere = await kernel.inject({ method: 'POST', url: '/api/gateway/session/claim', payload: { code }, remoteAddress: '10.0.0.9' });
    expect(elsewhere.statusCode, elsewhere.body).to.equal(200);
  });
});

describe('signin: sign-in codes expire', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { signin: { codeTtlMs: 1000 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  it('a code claimed after server.signin.codeTtlMs is refused', async () => {
    const token = await createAccount(kernel, 'exp');
    const { code, expires_at: expiresAt } = (await kernel.inject({ method: 'POST', url: '/api/gateway/session/codes', token })).json<Minted>();
    await until(() => Date.now() > Date.parse(expiresAt) + 50, { what: 'the code to expire' });
    const late = await new TestBrowser(url).claim(code);
    expect(late.status).to.equal(401);
    expect(late.setCookies).to.deep.equal([]);
  });
});
