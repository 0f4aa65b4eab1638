/**
 * The accounts list, activity and client preferences (seed 000 §4.10): `/admin/accounts`,
 * `/admin/accounts/{id}/active|activity`, `/me/accounts`, `/me/accounts/{id}/activity`,
 * `/me/activity`, `/accounts/{me|account}/preferences`. Another account is 404 to a non-admin.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';
import { TestBrowser } from './helpers/signin-browser.js';

type Detail = { detail: { reason_code: string; message: string } };
interface Entry { id: string; kind: string; via: string | null; actor: string | null; count: number | null; token_id: string | null }
interface Page { account: string; items: Entry[]; next_cursor: string | null }
interface Row { account: string; active: boolean; token_count: number; session_count: number; last_active_at: string | null; is_me?: boolean }

describe('signin: accounts list and activity', () => {
  let kernel: TestKernel;
  let url: string;
  let ann: string;
  let bob: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { signin: {}, accounts: { activityLimit: 10, activityCoalesceMs: 600_000 } } } });
    ({ url } = await kernel.listen());
    ann = await createAccount(kernel, 'ann');
    bob = await createAccount(kernel, 'bob');
  });
  after(() => kernel.stop());

  const get = (path: string, token: string) => kernel.inject({ url: `/api/gateway${path}`, token });

  it('GET /admin/accounts lists every account with its state, counts and last activity (admin only)', async () => {
    const browser = new TestBrowser(url);
    await browser.login(ann);
    const res = await get('/admin/accounts', kernel.adminToken);
    expect(res.statusCode, res.body).to.equal(200);
    const rows = res.json<{ items: Row[] }>().items;
    expect(rows.map((r) => r.account)).to.include.members(['admin', 'ann', 'bob']);
    const annRow = rows.find((r) => r.account === 'ann')!;
    expect(annRow).to.include({ active: true, token_count: 1, session_count: 1, is_me: false });
    expect(annRow.last_active_at).to.be.a('string');
    expect(rows.find((r) => r.account === 'admin')!.is_me).to.equal(true);
    expect((await get('/admin/accounts', ann)).statusCode).to.equal(403);
    expect((await kernel.inject({ url: '/api/gateway/admin/accounts' })).statusCode).to.equal(401);
  });

  it('GET /me/accounts shows a non-admin only itself, an admin every account', async () => {
    const mine = (await get('/me/accounts', bob)).json<{ items: Row[] }>().items;
    expect(mine.map((r) => r.account)).to.deep.equal(['bob']);
    expect(mine[0]!.is_me).to.equal(true);
    const all = (await get('/me/accounts', kernel.adminToken)).json<{ items: Row[] }>().items;
    expect(all.map((r) => r.account)).to.include.members(['admin', 'ann', 'bob']);
  });

  it('records sign-ins and coalesces requests into one entry with a count', async () => {
    const token = await createAccount(kernel, 'cal');
    const browser = new TestBrowser(url);
    await browser.login(token);
    for (let i = 0; i < 4; i++) expect((await browser.request('GET', '/api/gateway/me')).status).to.equal(200);
    const page = (await get('/me/activity', token)).json<Page>();
    expect(page.account).to.equal('cal');
    const signIn = page.items.find((e) => e.kind === 'sign_in')!;
    expect(signIn).to.include({ via: 'login' });
    const sessionRequests = page.items.filter((e) => e.kind === 'requests' && e.via === 'session');
    expect(sessionRequests).to.have.length(1);
    expect(sessionRequests[0]!.count).to.equal(4);
    // The bearer read of /me/activity itself counts under via bearer.
    expect(page.items.filter((e) => e.kind === 'requests' && e.via === 'bearer')).to.have.length(1);
  });

  it('records tokens issued and revoked, and suspensions, naming the admin who acted', async () => {
    const token = await createAccount(kernel, 'dan');
    const issued = (await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users/dan/tokens', token: kernel.adminToken, payload: {} })).json<{ token_id: string }>();
    await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/dan/tokens/${issued.token_id}`, token: kernel.adminToken });
    await kernel.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/dan/active', token: kernel.adminToken, payload: { active: false } });
    const page = (await get('/admin/accounts/dan/activity', kernel.adminToken)).json<Page>();
    const kinds = page.items.map((e) => e.kind);
    expect(kinds).to.include.members(['token_issued', 'token_revoked', 'account_suspended']);
    expect(page.items.find((e) => e.kind === 'token_revoked')).to.include({ actor: 'admin', token_id: issued.token_id });
    // Newest first.
    expect(kinds.indexOf('account_suspended')).to.be.lessThan(kinds.indexOf('token_issued'));
    expect((await get('/me/activity', token)).statusCode).to.equal(401);
  });

  it('keeps at most server.accounts.activityLimit entries and pages them with next_cursor', async () => {
    const token = await createAccount(kernel, 'eli');
    for (let i = 0; i < 14; i++) expect((await new TestBrowser(url).login(token)).status).to.equal(200);
    const first = (await get('/me/activity?limit=6', token)).json<Page>();
    expect(first.items).to.have.length(6);
    expect(first.next_cursor).to.be.a('string');
    const second = (await get(`/me/activity?limit=6&before=${first.next_cursor}`, token)).json<Page>();
    const ids = [...first.items, ...second.items].map((e) => e.id);
    expect(new Set(ids).size).to.equal(ids.length);
    const all = (await get('/me/activity?limit=1000', token)).json<Page>();
    expect(all.items.length).to.be.at.most(10);
    expect(all.next_cursor).to.equal(null);
    expect((await get('/me/activity?limit=0', token)).statusCode).to.equal(400);
    expect((await get('/me/activity?limit=100000', token)).statusCode).to.equal(400);
    // A forged cursor is not an error and never reaches another account's entries.
    const forged = Buffer.from(JSON.stringify(['ann', Date.now(), 1])).toString('base64url');
    const page = (await get(`/me/activity?before=${forged}`, token)).json<Page>();
    expect(page.account).to.equal('eli');
    expect(page.items.length).to.be.greaterThan(0);
  });

  it('another account\'s activity: 404 to a non-admin (existing or not, same answer), 403 on the admin route', async () => {
    const other = await get('/me/accounts/ann/activity', bob);
    const missing = await get('/me/accounts/nobody/activity', bob);
    expect(other.statusCode).to.equal(404);
    expect(missing.statusCode).to.equal(404);
    expect(other.json<Detail>().detail.reason_code).to.equal(missing.json<Detail>().detail.reason_code);
    expect(other.json<Detail>().detail.message).to.equal(missing.json<Detail>().detail.message.replace('nobody', 'ann'));
    expect((await get('/admin/accounts/ann/activity', bob)).statusCode).to.equal(403);
    expect((await get('/me/accounts/bob/activity', bob)).statusCode).to.equal(200);
    const me = await get('/me/accounts/me/activity', bob);
    expect(me.statusCode, `me names the caller: ${me.body}`).to.equal(200);
    expect(me.json<{ account: string }>().account).to.equal('bob');
    expect((await get('/me/accounts/ann/activity', kernel.adminToken)).statusCode).to.equal(200);
    expect((await get('/admin/accounts/nobody/activity', kernel.adminToken)).statusCode).to.equal(404);
    for (const hostile of ['..%2Fadmin', 'ANN', '%00', 'a'.repeat(65)]) {
      expect((await get(`/me/accounts/${hostile}/activity`, bob)).statusCode, hostile).to.be.oneOf([400, 404]);
    }
  });

  it('PUT /admin/accounts/{id}/active: changed only when it changes; the bootstrap admin and oneself cannot be suspended', async () => {
    await createAccount(kernel, 'fin');
    const put = (account: string, active: boolean, token = kernel.adminToken) =>
      kernel.inject({ method: 'PUT', url: `/api/gateway/admin/accounts/${account}/active`, token, payload: { active } });
    expect((await put('fin', true)).json()).to.include({ changed: false, active: true });
    expect((await put('fin', false)).json()).to.include({ changed: true, active: false });
    expect((await put('fin', false)).json()).to.include({ changed: false, active: false });
    const protectedAdmin = await put('admin', false);
    expect(protectedAdmin.statusCode).to.equal(409);
    expect(protectedAdmin.json<Detail>().detail.reason_code).to.equal('protected_account');
    const other = (await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'root2', roles: ['admin'] } })).json<{ token: { token: string } }>().token.token;
    expect((await put('root2', false, other)).statusCode).to.equal(409);
    expect((await put('nobody', false)).statusCode).to.equal(404);
    expect((await kernel.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/fin/active', token: kernel.adminToken, payload: { active: 'no' } })).statusCode).to.equal(400);
    expect((await put('fin', false, bob)).statusCode).to.equal(403);
  });

  it('the account id me is reserved', async () => {
    const res = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'me' } });
    expect(res.statusCode).to.equal(409);
  });
});

describe('signin: client preferences per account', () => {
  let kernel: TestKernel;
  let ann: string;
  let bob: string;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { accounts: { preferencesMaxBytes: 256 } } } });
    ann = await createAccount(kernel, 'ann');
    bob = await createAccount(kernel, 'bob');
  });
  after(() => kernel.stop());

  const prefs = (account: string, token: string, preferences?: unknown) =>
    kernel.inject({ method: preferences === undefined ? 'GET' : 'PUT', url: `/api/gateway/accounts/${account}/preferences`, token, payload: preferences === undefined ? undefined : { preferences } });

  it('starts empty, is replaced whole by PUT, and reads back for me and by account id', async () => {
    const empty = await prefs('me', ann);
    expect(empty.statusCode, empty.body).to.equal(200);
    expect(empty.json()).to.deep.equal({ account: 'ann', preferences: {}, updated_at: null, updated_by: null, max_bytes: 256 });
    expect((await prefs('me', ann, { theme: 'dark', layout: { sidebar: true } })).statusCode).to.equal(200);
    expect((await prefs('me', ann, { theme: 'light' })).json()).to.deep.include({ preferences: { theme: 'light' }, updated_by: 'ann' });
    expect((await prefs('ann', ann)).json()).to.deep.include({ account: 'ann', preferences: { theme: 'light' } });
  });

  it('another account\'s preferences are 404 to a non-admin (read and write, existing or not); an admin may read and write them', async () => {
    await prefs('me', ann, { secret: 'ann-only' });
    for (const target of ['ann', 'nobody']) {
      const read = await prefs(target, bob);
      expect(read.statusCode, target).to.equal(404);
      expect(read.body).not.to.contain('ann-only');
      expect((await prefs(target, bob, { hijack: true })).statusCode, target).to.equal(404);
    }
    expect((await prefs('me', ann)).json<{ preferences: unknown }>().preferences).to.deep.equal({ secret: 'ann-only' });
    const byAdmin = await prefs('ann', kernel.adminToken, { theme: 'set-by-admin' });
    expect(byAdmin.json()).to.deep.include({ account: 'ann', updated_by: 'admin' });
    expect((await prefs('nobody', kernel.adminToken)).statusCode).to.equal(404);
    expect((await kernel.inject({ url: '/api/gateway/accounts/me/preferences' })).statusCode).to.equal(401);
  });

  it('oversize preferences are 413 (over the setting) and nothing is stored; huge bodies are 413 too', async () => {
    await prefs('me', bob, { keep: 1 });
    const over = await prefs('me', bob, { blob: 'x'.repeat(300) });
    expect(over.statusCode).to.equal(413);
    expect(over.json<Detail>().detail.reason_code).to.equal('preferences_too_large');
    expect(over.json<Detail>().detail.message).to.contain('server.accounts.preferencesMaxBytes');
    const huge = await prefs('me', bob, { blob: 'x'.repeat(200_000) });
    expect(huge.statusCode).to.equal(413);
    expect((await prefs('me', bob)).json<{ preferences: unknown }>().preferences).to.deep.equal({ keep: 1 });
  });

  it('a body that is not an object of preferences is 400', async () => {
    for (const preferences of [[1, 2], 'dark', null, 5]) {
      expect((await prefs('me', bob, preferences)).statusCode, JSON.stringify(preferences)).to.equal(400);
    }
    const extra = await kernel.inject({ method: 'PUT', url: '/api/gateway/accounts/me/preferences', token: bob, payload: { preferences: {}, account: 'ann' } });
    expect(extra.statusCode).to.equal(400);
    let deep: unknown = {};
    for (let i = 0; i < 80; i++) deep = { d: deep };
    expect((await prefs('me', bob, deep)).statusCode).to.equal(400);
  });
});

describe('signin: request counts survive a clean stop', () => {
  it('the count of the window in flight is written when the kernel stops', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'keel-activity-'));
    try {
      let kernel = await createTestKernel({ dataDir, config: { server: { accounts: { activityCoalesceMs: 600_000 } } } });
      const token = await createAccount(kernel, 'pat');
      for (let i = 0; i < 5; i++) expect((await kernel.inject({ url: '/api/gateway/me', token })).statusCode).to.equal(200);
      await kernel.stop();
      kernel = await createTestKernel({ dataDir });
      try {
        const page = (await kernel.inject({ url: '/api/gateway/admin/accounts/pat/activity', token: kernel.adminToken })).json<Page>();
        const requests = page.items.filter((e) => e.kind === 'requests');
        expect(requests).to.have.length(1);
        expect(requests[0]!.count).to.equal(5);
      } finally {
        await kernel.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
