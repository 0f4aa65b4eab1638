/**
 * Plugin-supplied authentication through the front door: the hub's seat keys and the example
 * plugin's read keys are checked by the kernel before validation, refused in the plugin's error
 * shape, counted and throttled like kernel tokens, and listed as security schemes in OpenAPI.
 */
import { expect } from 'chai';
import { defineAuthenticator, definePlugin, route, type Principal } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { notesPlugin } from '@keel-examples/notes-plugin';
import { hubPlugin } from '@keel/plugin-hub';
import { refusedUpgrade } from './helpers/socket-client.js';

interface Operation { security: Array<Record<string, string[]>>; responses: Record<string, unknown> }
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>> };
}

describe('plugin-supplied authentication: hub seat keys on routes', () => {
  const BURST = 4;
  let kernel: TestKernel;
  let ann: string;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    ann = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
  });
  after(() => kernel?.stop());

  it('refuses a missing and a bad seat key with the hub 401 shape, and admits a good one as the seat', async () => {
    const missing = await kernel.inject({ url: '/hub/whoami' });
    expect(missing.statusCode).to.equal(401);
    expect(missing.json()).to.deep.equal({ detail: 'missing bearer token' });
    expect(missing.headers['www-authenticate']).to.equal('Bearer');
    const bad = await kernel.inject({ url: '/hub/whoami', token: 'agora_not-a-seat' });
    expect(bad.statusCode).to.equal(401);
    expect(bad.json()).to.deep.equal({ detail: 'invalid api key' });
    const good = await kernel.inject({ url: '/hub/whoami', token: ann });
    expect(good.statusCode).to.equal(200);
    expect(good.json<{ id: string }>().id).to.equal('ann');
  });

  it('authenticates before validating: a bad key with a malformed body is a 401, not a 422 that would confirm the route', async () => {
    const res = await kernel.inject({ method: 'POST', url: '/hub/channels', token: 'agora_not-a-seat', payload: { name: 42 } });
    expect(res.statusCode).to.equal(401);
    expect(res.json()).to.deep.equal({ detail: 'invalid api key' });
    // The same body with a good key reaches validation (the hub's 422 shape).
    const invalid = await kernel.inject({ method: 'POST', url: '/hub/channels', token: ann, payload: { name: 42 } });
    expect(invalid.statusCode).to.equal(422);
  });

  it('keeps the admin-key routes at 403 without the admin key (401 without any key), never counting those refusals', async () => {
    const keyless = await kernel.inject({ method: 'POST', url: '/hub/agents', payload: { id: 'bob' } });
    expect(keyless.statusCode).to.equal(401);
    expect(keyless.json()).to.deep.equal({ detail: 'missing bearer token' });
    for (const token of [ann, 'agora_guess', 'not-a-token']) {
      const res = await kernel.inject({ method: 'POST', url: '/hub/agents', token, payload: { id: 'bob' } });
      expect(res.statusCode, String(token)).to.equal(403);
      expect(res.json()).to.deep.equal({ detail: 'agent registration requires the admin key' });
    }
    // An operator act takes the admin key as the operator (the admin key is the kernel's admin token).
    expect((await kernel.inject({ method: 'POST', url: '/hub/admin/pause', token: kernel.adminToken, payload: {} })).statusCode).to.equal(200);
    expect((await kernel.inject({ method: 'DELETE', url: '/hub/admin/pause', token: kernel.adminToken })).statusCode).to.equal(200);
    // A plain seat on an operator act: the act's own 403 sentence.
    const seatPause = await kernel.inject({ method: 'POST', url: '/hub/admin/pause', token: ann, payload: {} });
    expect(seatPause.statusCode).to.equal(403);
    expect(seatPause.json()).to.deep.equal({ detail: 'pausing the hub is an operator act' });
  });

  it('counts bad seat keys: after the burst the source gets 429 with Retry-After, even with a good key', async () => {
    // A kernel of its own, so the failures of the tests above do not count here.
    await kernel.stop();
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    ann = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
    for (let i = 0; i < BURST; i++) expect((await kernel.inject({ url: '/hub/channels', token: `agora_guess${i}` })).statusCode).to.equal(401);
    const refused = await kernel.inject({ url: '/hub/channels', token: ann });
    expect(refused.statusCode).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    expect(refused.json<{ detail: string }>().detail).to.contain('Too many failed sign-ins');
    // A request without a key carries nothing to guess with: still its 401.
    expect((await kernel.inject({ url: '/hub/channels' })).statusCode).to.equal(401);
  });
});

describe('plugin-supplied authentication: the hub socket upgrade uses the same seat-key check', () => {
  let kernel: TestKernel;
  let ws: string;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent' } } });
    ws = `${(await kernel.listen()).url.replace(/^http/, 'ws')}/hub/ws`;
  });
  after(() => kernel?.stop());

  it('refuses a bad key, and the kernel token that is no seat key, with the hub 401 before any socket opens', async () => {
    for (const [url, headers] of [[`${ws}?token=agora_nope`, {}], [ws, { authorization: 'Bearer agora_nope' }], [`${ws}?token=${kernel.adminToken}`, {}]] as const) {
      const refused = await refusedUpgrade(url, headers);
      expect(refused.status, url).to.equal(401);
      expect(JSON.parse(refused.body)).to.deep.equal({ detail: 'invalid api key' });
    }
  });
});

describe('plugin-supplied authentication in the OpenAPI document', () => {
  let kernel: TestKernel;
  let doc: OpenApiDoc;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin, notesPlugin], config: { server: { logLevel: 'silent' } } });
    doc = (await kernel.inject({ url: '/openapi.json' })).json<OpenApiDoc>();
  });
  after(() => kernel?.stop());

  it('declares the hub and notes schemes beside the kernel token', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.hubSeatKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.hubSeatKey!.description).to.contain('seat key');
    expect(schemes.hubAdminKey).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.notesReadKey).to.include({ type: 'apiKey', in: 'header', name: 'x-notes-key' });
  });

  it("puts each route's real scheme on its operation, and none on public ones", () => {
    const security = (method: string, path: string) => doc.paths[path]![method]!.security;
    expect(security('get', '/hub/whoami')).to.deep.equal([{ hubSeatKey: [] }]);
    expect(security('post', '/hub/channels/{channel}/messages')).to.deep.equal([{ hubSeatKey: [] }]);
    expect(security('post', '/hub/admin/pause')).to.deep.equal([{ hubSeatKey: [] }]);
    expect(security('post', '/hub/agents')).to.deep.equal([{ hubAdminKey: [] }]);
    expect(security('post', '/hub/join')).to.deep.equal([]);
    expect(security('get', '/hub/healthz')).to.deep.equal([]);
    expect(security('get', '/api/notes/shared/items')).to.deep.equal([{ notesReadKey: [] }]);
    expect(security('get', '/api/notes/items')).to.deep.equal([{ bearerAuth: [] }]);
    expect(doc.paths['/hub/whoami']!.get!.responses).to.have.property('401');
    // Every hub operation but the public ones names a scheme: none is listed as open by mistake.
    const publicHub = ['get /hub/healthz', 'get /hub', 'post /hub/join'];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/hub') || path.startsWith('/hub/ui')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!publicHub.includes(`${method} ${path}`)) expect(op.security, `${method} ${path}`).to.have.length(1);
      }
    }
  });
});

describe('plugin-supplied authentication: the example plugin reads notes with its own key', () => {
  const BURST = 3;
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [notesPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
  });
  after(() => kernel?.stop());

  it('mints a read key for a signed-in account; the key (not a Keel token) reads that account\'s notes', async () => {
    await kernel.inject({ method: 'POST', url: '/api/notes/items', token: kernel.adminToken, payload: { title: 'mine', text: 'hello' } });
    const minted = await kernel.inject({ method: 'POST', url: '/api/notes/read-keys', token: kernel.adminToken });
    expect(minted.statusCode).to.equal(201);
    const { key, account } = minted.json<{ key: string; account: string }>();
    expect(key).to.match(/^notes_/);

    const read = await kernel.inject({ url: '/api/notes/shared/items', headers: { 'x-notes-key': key } });
    expect(read.statusCode).to.equal(200);
    expect(read.json<{ account: string; items: Array<{ title: string }> }>()).to.deep.include({ account });
    expect(read.json<{ items: Array<{ title: string }> }>().items.map((n) => n.title)).to.deep.equal(['mine']);
    // The read key opens only its route; a Keel token is not a read key.
    expect((await kernel.inject({ url: '/api/notes/items', headers: { authorization: `Bearer ${key}` } })).statusCode).to.equal(401);
    expect((await kernel.inject({ url: '/api/notes/shared/items', token: kernel.adminToken })).statusCode).to.equal(401);
  });

  it('refuses a missing and a bad read key in the gateway shape, then throttles the source', async () => {
    // A kernel of its own, so the failures of the test above do not count here.
    await kernel.stop();
    kernel = await createTestKernel({ plugins: [notesPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    const missing = await kernel.inject({ url: '/api/notes/shared/items' });
    expect(missing.statusCode).to.equal(401);
    expect(missing.json<{ detail: { reason_code: string; message: string } }>().detail).to.deep.include({ reason_code: 'missing_credential' });
    expect(missing.json<{ detail: { message: string } }>().detail.message).to.contain('x-notes-key');
    for (let i = 0; i < BURST; i++) {
      const bad = await kernel.inject({ url: '/api/notes/shared/items', headers: { 'x-notes-key': `notes_guess${i}` } });
      expect(bad.statusCode).to.equal(401);
      expect(bad.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('invalid_credential');
    }
    const throttled = await kernel.inject({ url: '/api/notes/shared/items', headers: { 'x-notes-key': 'notes_guess-next' } });
    expect(throttled.statusCode).to.equal(429);
    expect(throttled.headers['retry-after']).to.match(/^\d+$/);
  });
});

describe('plugin-supplied authentication: boot checks and handler types', () => {
  it('refuses two authenticators that share a name with different schemes, and one taking the kernel scheme name', async () => {
    const make = (name: string, header: string) => defineAuthenticator({ name, scheme: { type: 'apiKey', in: 'header', name: header }, authenticate: () => null });
    const plugin = (id: string, auth: ReturnType<typeof make>) => definePlugin({
      id, version: '0.1.0', sdk: '^1.0.0', defaultPrefix: `/${id}`,
      setup: () => ({ routes: [route({ method: 'GET', path: '/x', auth, handler: () => ({}) })] }),
    });
    let failure: unknown = null;
    try {
      await (await createTestKernel({ plugins: [plugin('one', make('sharedKey', 'x-one')), plugin('two', make('sharedKey', 'x-two'))], config: { server: { logLevel: 'silent' } } })).stop();
    } catch (err) {
      failure = err;
    }
    expect(String(failure)).to.contain("two authenticators are named 'sharedKey'");
    failure = null;
    try {
      await (await createTestKernel({ plugins: [plugin('three', make('bearerAuth', 'x-three'))], config: { server: { logLevel: 'silent' } } })).stop();
    } catch (err) {
      failure = err;
    }
    expect(String(failure)).to.contain("the kernel's own security scheme");
  });

  it('types the principal from auth: non-null where a principal is required, the authenticator\'s own type for plugin auth', () => {
    const keyAuth = defineAuthenticator({ name: 'k', scheme: { type: 'apiKey', in: 'header', name: 'x-k' }, authenticate: (key) => (key ? { holder: key } : null) });
    const routes = [
      route({ method: 'GET', path: '/a', handler: ({ principal }) => principal.account }),
      route({ method: 'GET', path: '/b', auth: 'admin', handler: ({ principal }) => principal.roles }),
      route({ method: 'GET', path: '/c', auth: keyAuth, handler: ({ principal }) => principal.holder }),
      // @ts-expect-error -- a public route's principal may be null
      route({ method: 'GET', path: '/d', auth: 'public', handler: ({ principal }) => principal.account }),
      // @ts-expect-error -- a plugin principal is not a kernel Principal
      route({ method: 'GET', path: '/e', auth: keyAuth, handler: ({ principal }): Principal => principal }),
    ];
    expect(routes).to.have.length(5);
  });
});
