import { statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';

interface Created {
  account: string;
  tenant: string;
  roles: string[];
  token: { token_id: string; token: string };
}

describe('auth and accounts (seed 000 §5)', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [probePlugin], config: { server: { origins: ['https://app.example.com'] } } });
  });
  after(() => kernel.stop());

  const createUser = (body: unknown, token = kernel.adminToken) =>
    kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token, payload: body });

  it('writes the bootstrap admin token to <data>/auth/admin.token with mode 0600', () => {
    const file = path.join(kernel.dataDir, 'auth', 'admin.token');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(readFileSync(file, 'utf8').trim()).to.equal(kernel.adminToken);
  });

  it('answers 401 without a token everywhere under /api/gateway except about, known route or not', async () => {
    for (const url of ['/api/gateway/me', '/api/gateway/admin/users', '/api/gateway/probe/slow', '/api/gateway/no-such-route', '/api/gateway']) {
      const res = await kernel.inject({ url });
      expect(res.statusCode, url).to.equal(401);
      expect(res.headers['www-authenticate'], url).to.match(/^Bearer/);
      expect(res.json<{ detail: { message: string } }>().detail.message, url).to.match(/Authorization: Bearer/);
    }
    expect((await kernel.inject({ url: '/api/gateway/about' })).statusCode).to.equal(200);
    expect((await kernel.inject({ url: '/api/health' })).statusCode).to.equal(200);
  });

  it('answers 401 for an unknown token and a malformed Authorization header', async () => {
    expect((await kernel.inject({ url: '/api/gateway/me', token: 'keel_not-a-real-token' })).statusCode).to.equal(401);
    expect((await kernel.inject({ url: '/api/gateway/me', headers: { authorization: `Basic ${kernel.adminToken}` } })).statusCode).to.equal(401);
  });

  it('GET /api/gateway/me returns the principal {account, tenant, roles}', async () => {
    const res = await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken });
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.include({ account: 'admin', tenant: 'default', roles: ['admin'], is_admin: true });
  });

  it('lets an admin create an account whose token works once shown and is never returned again', async () => {
    const res = await createUser({ account: 'alice', tenant: 'acme', roles: ['analyst'] });
    expect(res.statusCode).to.equal(201);
    const created = res.json<Created>();
    expect(created).to.include({ account: 'alice', tenant: 'acme' });
    expect(created.token.token).to.match(/^keel_/);

    const me = await kernel.inject({ url: '/api/gateway/me', token: created.token.token });
    expect(me.json()).to.deep.include({ account: 'alice', tenant: 'acme', roles: ['analyst'], is_admin: false, token_id: created.token.token_id });

    for (const url of ['/api/gateway/admin/users', '/api/gateway/admin/users/alice']) {
      const listing = await kernel.inject({ url, token: kernel.adminToken });
      expect(listing.statusCode).to.equal(200);
      expect(listing.body, url).to.not.contain(created.token.token);
    }
    const one = await kernel.inject({ url: '/api/gateway/admin/users/alice', token: kernel.adminToken });
    expect(one.json<{ tokens: Array<Record<string, unknown>> }>().tokens).to.have.length(1);
    expect(one.json<{ tokens: Array<Record<string, unknown>> }>().tokens[0]).to.not.have.property('token');
  });

  it('stores tokens hashed: the plain token appears nowhere in the data directory', async () => {
    const created = (await createUser({ account: 'hashcheck' })).json<Created>();
    const { readdirSync } = await import('node:fs');
    const dbDir = path.join(kernel.dataDir, 'db');
    for (const file of readdirSync(dbDir)) {
      expect(readFileSync(path.join(dbDir, file)).includes(Buffer.from(created.token.token)), file).to.equal(false);
    }
  });

  it('refuses admin routes to a non-admin with 403 and a sentence', async () => {
    const bob = (await createUser({ account: 'bob' })).json<Created>();
    const res = await createUser({ account: 'mallory' }, bob.token.token);
    expect(res.statusCode).to.equal(403);
    expect(res.json<{ detail: string }>().detail).to.match(/admin/);
    expect((await kernel.inject({ url: '/api/gateway/probe/admin-only', token: bob.token.token })).statusCode).to.equal(403);
    expect((await kernel.inject({ url: '/api/gateway/admin/users/mallory', token: kernel.adminToken })).statusCode).to.equal(404);
  });

  it('answers 409 for a duplicate account and 400 naming the field for a bad one', async () => {
    await createUser({ account: 'carol' });
    const dup = await createUser({ account: 'carol' });
    expect(dup.statusCode).to.equal(409);
    const bad = await createUser({ account: 'Not Valid!' });
    expect(bad.statusCode).to.equal(400);
    expect(bad.json<{ detail: { field: string } }>().detail.field).to.equal('body.account');
  });

  it('issues extra tokens, revokes one, and disabling an account revokes them all', async () => {
    const dave = (await createUser({ account: 'dave' })).json<Created>();
    const extra = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users/dave/tokens', token: kernel.adminToken, payload: { label: 'laptop' } });
    expect(extra.statusCode).to.equal(201);
    const second = extra.json<{ token_id: string; token: string; label: string }>();
    expect(second.label).to.equal('laptop');
    expect((await kernel.inject({ url: '/api/gateway/me', token: second.token })).statusCode).to.equal(200);

    const revoke = await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/dave/tokens/${second.token_id}`, token: kernel.adminToken });
    expect(revoke.statusCode).to.equal(204);
    expect((await kernel.inject({ url: '/api/gateway/me', token: second.token })).statusCode).to.equal(401);
    expect((await kernel.inject({ url: '/api/gateway/me', token: dave.token.token })).statusCode).to.equal(200);
    expect((await kernel.inject({ method: 'DELETE', url: `/api/gateway/admin/users/dave/tokens/${second.token_id}`, token: kernel.adminToken })).statusCode).to.equal(404);

    const disable = await kernel.inject({ method: 'DELETE', url: '/api/gateway/admin/users/dave', token: kernel.adminToken });
    expect(disable.statusCode).to.equal(200);
    expect(disable.json()).to.deep.include({ account: 'dave', disabled: true });
    expect((await kernel.inject({ url: '/api/gateway/me', token: dave.token.token })).statusCode).to.equal(401);
    expect((await createUser({ account: 'dave' })).statusCode).to.equal(409);
    expect((await kernel.inject({ method: 'DELETE', url: '/api/gateway/admin/users/admin', token: kernel.adminToken })).statusCode).to.equal(409);
  });

  describe('origin allowlist', () => {
    it('lets requests without an Origin through and refuses a foreign origin with 403 naming the setting', async () => {
      const res = await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken, headers: { origin: 'https://evil.example' } });
      expect(res.statusCode).to.equal(403);
      expect(res.json<{ detail: { message: string } }>().detail.message).to.contain('server.origins');
    });

    it('allows a listed origin with CORS headers and answers its preflight', async () => {
      const res = await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken, headers: { origin: 'https://app.example.com' } });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['access-control-allow-origin']).to.equal('https://app.example.com');
      const preflight = await kernel.inject({ method: 'OPTIONS', url: '/api/gateway/me', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
      expect(preflight.statusCode).to.equal(204);
      expect(String(preflight.headers['access-control-allow-headers'])).to.contain('authorization');
    });
    // The server's own origin (the listen address, never the Host header): origin-policy.test.ts.
  });
});
