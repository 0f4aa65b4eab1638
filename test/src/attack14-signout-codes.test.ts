/**
 * Attack on issue 14 item 6 (browser sign-in): "sign out everywhere" ended every browser session of
 * the account but left its unclaimed sign-in codes claimable: a code minted before (a link left in a
 * terminal, a chat, a shoulder-surfed URL) still bought a fresh session afterwards, for up to
 * `server.signin.codeTtlMs`. A code is a session not yet claimed; everywhere now includes it.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';
import { TestBrowser } from './helpers/signin-browser.js';

describe('attack14: sign out everywhere also ends unclaimed sign-in codes', () => {
  let kernel: TestKernel;
  let url: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { authFailures: { burst: 100 } } } });
    ({ url } = await kernel.listen());
  });
  after(() => kernel.stop());

  const mint = async (token: string): Promise<string> => {
    const res = await kernel.inject({ method: 'POST', url: '/api/gateway/session/codes', token });
    expect(res.statusCode, res.body).to.equal(201);
    return res.json<{ code: string }>().code;
  };

  it('a code minted before logout {everywhere: true} is refused afterwards; another account\'s code still works', async () => {
    const token = await createAccount(kernel, 'leaky');
    const other = await createAccount(kernel, 'bystander');
    const stale = await mint(token);
    const theirs = await mint(other);
    const out = await kernel.inject({ method: 'POST', url: '/api/gateway/session/logout', token, payload: { everywhere: true } });
    expect(out.statusCode, out.body).to.equal(200);
    const claimed = await new TestBrowser(url).claim(stale);
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(401);
    expect((claimed.body as unknown as { detail: { reason_code: string } }).detail.reason_code).to.equal('invalid_code');
    expect(claimed.setCookies).to.deep.equal([]);
    const fine = await new TestBrowser(url).claim(theirs);
    expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
    // A code minted after the sign-out works as usual.
    const fresh = await new TestBrowser(url).claim(await mint(token));
    expect(fresh.status, JSON.stringify(fresh.body)).to.equal(200);
  });

  it('a plain logout (this session only) leaves the account\'s codes claimable', async () => {
    const token = await createAccount(kernel, 'tidy');
    const code = await mint(token);
    const out = await kernel.inject({ method: 'POST', url: '/api/gateway/session/logout', token, payload: {} });
    expect(out.statusCode, out.body).to.equal(200);
    expect((await new TestBrowser(url).claim(code)).status).to.equal(200);
  });

  it('a code minted before a suspension is refused after the account is restored', async () => {
    const token = await createAccount(kernel, 'paused');
    const code = await mint(token);
    const admin = kernel.adminToken;
    for (const active of [false, true]) {
      const res = await kernel.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/paused/active', token: admin, payload: { active } });
      expect(res.statusCode, res.body).to.equal(200);
    }
    const claimed = await new TestBrowser(url).claim(code);
    expect(claimed.status, JSON.stringify(claimed.body)).to.equal(401);
    expect((await new TestBrowser(url).claim(await mint(token))).status, 'a code minted after the restore').to.equal(200);
  });
});
