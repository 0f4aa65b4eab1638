/**
 * Issue 9, items 14, 15 and 17 (first half): anonymous callers learn nothing about token paths,
 * security headers on every response, failed authentication counted, logged and throttled per source.
 */
import net from 'node:net';
import { expect } from 'chai';
import { buildConfig, Kernel } from '@keel/kernel';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { inferencePlugin } from '@keel/plugin-inference';
import { until } from './helpers/gateway-runs.js';
import { refusedUpgrade } from './helpers/socket-client.js';
import { tempDir } from './helpers/paths.js';

const BAD = 'not-a-real-token-0123456789';

function expect401Gateway(res: InjectResponse, what: string): void {
  expect(res.statusCode, `${what}: ${res.body}`).to.equal(401);
  expect(res.headers.allow, what).to.equal(undefined);
  expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code, what).to.be.oneOf(['missing_token', 'invalid_token']);
}

describe('anonymous callers on token paths: 401 before 405 and 404 (item 14)', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [inferencePlugin], config: { server: { logLevel: 'silent' } } });
  });
  after(() => kernel?.stop());

  it('answers OPTIONS and unsupported methods on existing /api/gateway routes with 401, and 405 with Allow once signed in', async () => {
    for (const [method, url] of [['OPTIONS', '/api/gateway/me'], ['PATCH', '/api/gateway/me'], ['PUT', '/api/gateway/admin/users'], ['OPTIONS', '/api/gateway/about']]) {
      expect401Gateway(await kernel.inject({ method: method!, url: url! }), `${method} ${url}`);
      expect401Gateway(await kernel.inject({ method: method!, url: url!, token: BAD }), `${method} ${url} with a bad token`);
    }
    const signedIn = await kernel.inject({ method: 'PATCH', url: '/api/gateway/me', token: kernel.adminToken });
    expect(signedIn.statusCode).to.equal(405);
    expect(signedIn.headers.allow).to.contain('GET');
  });

  it('answers the same on /v1, in the OpenAI error shape', async () => {
    for (const [method, url] of [['OPTIONS', '/v1/models'], ['PUT', '/v1/chat/completions'], ['DELETE', '/v1/embeddings']]) {
      const res = await kernel.inject({ method: method!, url: url! });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(401);
      expect(res.headers.allow).to.equal(undefined);
      expect(res.json<{ error: { type: string } }>().error.type).to.equal('authentication_error');
    }
    for (const url of ['//v1/models', '/v1%2fmodels', '/V1/Models']) {
      const res = await kernel.inject({ url });
      expect(res.statusCode, `${url}: ${res.body}`).to.equal(401);
    }
    const signedIn = await kernel.inject({ method: 'PUT', url: '/v1/chat/completions', token: kernel.adminToken });
    expect(signedIn.statusCode).to.equal(405);
    expect(signedIn.headers.allow).to.contain('POST');
  });

  it('treats every spelling the gateway prefix could cover as gateway: double slashes, encoded slashes, dot segments, case', async () => {
    for (const url of ['//api/gateway/me', '/api/gateway%2fme', '/api/gateway%2Fme', '/api%2fgateway/me', '/api//gateway///nothing', '/x/../api/gateway/me', '/API/Gateway/nothing', '/api/gateway%5cme']) {
      expect401Gateway(await kernel.inject({ url }), url);
      expect401Gateway(await kernel.inject({ url, token: BAD }), `${url} with a bad token`);
      expect((await kernel.inject({ url, token: kernel.adminToken })).statusCode, `${url} signed in`).to.be.oneOf([200, 404]);
    }
  });

  it('leaves public paths as they were: 405 on /api/health, 404 elsewhere', async () => {
    expect((await kernel.inject({ method: 'PUT', url: '/api/health' })).statusCode).to.equal(405);
    expect((await kernel.inject({ url: '/nowhere' })).statusCode).to.equal(404);
  });
});

describe('security headers (item 15)', () => {
  let kernel: TestKernel;
  let ann: string;
  before(async () => {
    kernel = await createTestKernel({ plugins: [inferencePlugin, hubPlugin], config: { server: { logLevel: 'silent' } } });
    ann = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
  });
  after(() => kernel?.stop());

  it('sends X-Content-Type-Options: nosniff on every response: success, refusal, error, docs, redirect, hub', async () => {
    const responses: Array<[string, InjectResponse]> = [
      ['health', await kernel.inject({ url: '/api/health' })],
      ['openapi', await kernel.inject({ url: '/openapi.json' })],
      ['401', await kernel.inject({ url: '/api/gateway/me' })],
      ['404', await kernel.inject({ url: '/nowhere' })],
      ['405', await kernel.inject({ method: 'PUT', url: '/api/health' })],
      ['bad JSON', await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: '{', headers: { 'content-type': 'application/json' } })],
      ['redirect', await kernel.inject({ url: '/core/v1/models' })],
      ['docs', await kernel.inject({ url: '/docs' })],
      ['hub', await kernel.inject({ url: '/hub/channels', token: ann })],
      ['hub 401', await kernel.inject({ url: '/hub/channels' })],
    ];
    for (const [what, res] of responses) expect(res.headers['x-content-type-options'], `${what} (${res.statusCode})`).to.equal('nosniff');
  });

  it('serves /docs and its assets with a CSP that forbids framing and foreign scripts, and X-Frame-Options', async () => {
    for (const url of ['/docs', '/docs/swagger-ui-bundle.js', '/docs/keel-init.js']) {
      const res = await kernel.inject({ url });
      expect(res.statusCode, url).to.equal(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).to.contain("frame-ancestors 'none'").and.contain("script-src 'self'").and.contain("default-src 'none'");
      expect(csp, url).to.not.contain('unsafe-eval');
      expect(res.headers['x-frame-options'], url).to.equal('DENY');
    }
  });

  it('serves hub attachments with Content-Security-Policy: sandbox, whatever type was declared', async () => {
    for (const type of ['text/html', 'image/png', 'application/pdf']) {
      const bytes = Buffer.from(`<script>alert(1)</script> as ${type}`);
      const up = await kernel.inject({ method: 'POST', url: '/hub/channels/commons/attachments?filename=x', token: ann, payload: bytes, headers: { 'content-type': type } });
      expect(up.statusCode, up.body).to.equal(200);
      const res = await kernel.inject({ url: `/hub/channels/commons/attachments/${up.json<{ id: string }>().id}`, token: ann });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-security-policy'], type).to.equal('sandbox');
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
    }
  });
});

describe('failed authentication: counted, logged and throttled per source (item 17)', () => {
  const BURST = 3;
  let kernel: TestKernel;
  let seatKey: string;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    seatKey = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
  });
  after(() => kernel?.stop());

  it('never counts successful or anonymous requests, nor the admin key on a seat route', async () => {
    for (let i = 0; i < 4 * BURST; i++) {
      expect((await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken })).statusCode).to.equal(200);
      expect((await kernel.inject({ url: '/hub/channels', token: seatKey })).statusCode).to.equal(200);
      expect((await kernel.inject({ url: '/api/gateway/me' })).statusCode).to.equal(401);
      // The admin token is not a seat key: the hub refuses it here, but it is no failed sign-in.
      expect((await kernel.inject({ url: '/hub/channels', token: kernel.adminToken })).statusCode).to.equal(401);
    }
  });

  it('answers 429 with Retry-After once a source has used its burst of bad keys, bearer tokens and seat keys alike, valid keys included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < BURST; i++) {
      const res = await kernel.inject({ url: i % 2 ? '/hub/channels' : '/api/gateway/me', token: i % 2 ? 'agora_000000000000' : BAD });
      statuses.push(res.statusCode);
    }
    expect(statuses).to.deep.equal(Array(BURST).fill(401));

    const refused = await kernel.inject({ url: '/api/gateway/me', token: BAD });
    expect(refused.statusCode).to.equal(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).to.be.within(1, 60);
    const detail = refused.json<{ detail: { reason_code: string; message: string } }>().detail;
    expect(detail.reason_code).to.equal('too_many_auth_failures');
    expect(detail.message).to.contain('Try again in');

    // Guessing on: a right guess must not be told apart from a wrong one, on any route, nor through the hub.
    expect((await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken })).statusCode).to.equal(429);
    const hub = await kernel.inject({ url: '/hub/channels', token: seatKey });
    expect(hub.statusCode).to.equal(429);
    expect(hub.json<{ detail: string }>().detail).to.contain('Too many failed sign-ins');
    expect(hub.headers['retry-after']).to.be.a('string');
    // A forged X-Forwarded-For is not a new source.
    expect((await kernel.inject({ url: '/api/gateway/me', token: BAD, headers: { 'x-forwarded-for': '203.0.113.9' } })).statusCode).to.equal(429);
    // Anonymous requests carry no key to guess with: they are answered as before.
    expect((await kernel.inject({ url: '/api/health' })).statusCode).to.equal(200);
  });
});

describe('failed authentication over the hub socket: seat keys guessed on the upgrade are counted and throttled too (item 17)', () => {
  const BURST = 3;
  let kernel: TestKernel;
  let base: string;
  let seatKey: string;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    base = (await kernel.listen()).url;
    seatKey = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
  });
  after(() => kernel?.stop());

  it('answers bad keys on /hub/ws with 401 until the burst is used, then 429 with Retry-After, a valid seat key and HTTP calls included', async () => {
    const ws = `${base.replace(/^http/, 'ws')}/hub/ws`;
    for (let i = 0; i < BURST; i++) expect((await refusedUpgrade(`${ws}?token=agora_guess${i}`)).status).to.equal(401);

    const refused = await refusedUpgrade(`${ws}?token=${encodeURIComponent(seatKey)}`);
    expect(refused.status).to.equal(429);
    expect(refused.headers['retry-after']).to.match(/^\d+$/);
    expect(JSON.parse(refused.body).detail).to.contain('Too many failed sign-ins');
    // One count per source: the HTTP routes refuse this address as well.
    expect((await fetch(`${base}/hub/channels`, { headers: { authorization: `Bearer ${seatKey}` } })).status).to.equal(429);
  });
});

describe('failed authentication: the window ends, and every failure is logged with its source (item 17)', () => {
  const tmp = tempDir();
  const lines: Array<Record<string, unknown>> = [];
  let kernel: Kernel;
  let base: string;
  before(async () => {
    const { config } = buildConfig({ server: { logLevel: 'warn', dataDir: tmp.dir, authFailures: { burst: 2, windowMs: 1_000 } } }, {}, { file: null, baseDir: process.cwd() });
    kernel = await Kernel.boot({ config, mode: 'test', env: { KEEL_ADMIN_TOKEN: '' }, logSink: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    base = `http://127.0.0.1:${(await kernel.listen(0, '127.0.0.1')).port}`;
  });
  after(async () => {
    await kernel?.stop();
    tmp.remove();
  });

  const me = async (token: string) => (await fetch(`${base}/api/gateway/me`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('logs each failure with the source address and count, then refuses until the window ends, then counts afresh', async () => {
    expect([await me(BAD), await me(BAD), await me(BAD)]).to.deep.equal([401, 401, 429]);
    const failures = lines.filter((l) => l.component === 'auth');
    expect(failures.map((l) => [l.source, l.failures])).to.deep.equal([['127.0.0.1', 1], ['127.0.0.1', 2]]);
    expect(String(failures[1]!.msg)).to.contain('refusing this source');
    // The window is a second long: a bad key is checked (401) again once it has passed.
    await until(() => me(BAD), (status) => status === 401, 30_000);
    expect(await me(kernel.adminToken)).to.equal(200);
  });
});

describe('failed authentication on socket upgrades: the same throttle as every route', () => {
  const BURST = 3;
  let kernel: TestKernel;
  let port: number;
  before(async () => {
    kernel = await createTestKernel({ plugins: [hubPlugin], config: { server: { logLevel: 'silent', authFailures: { burst: BURST, windowMs: 60_000 } } } });
    ({ port } = await kernel.listen());
  });
  after(() => kernel?.stop());

  /** The status line of a `/hub/ws` upgrade with `key`, through a raw TCP client. */
  const upgrade = (key: string) => new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET /hub/ws?token=${key} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
        + 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n');
    });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer.split('\r\n', 1)[0]!));
    socket.on('error', reject);
  });

  it('counts bad keys on the hub socket, then refuses that source with 429 on the socket and on HTTP routes', async () => {
    const statuses: string[] = [];
    for (let i = 0; i < BURST; i++) statuses.push(await upgrade(`agora_guess${i}`));
    expect(statuses).to.deep.equal(Array(BURST).fill('HTTP/1.1 401 Unauthorized'));
    // Guessing on through the socket is refused before the key is checked...
    expect(await upgrade('agora_guess-next')).to.equal('HTTP/1.1 429 Too Many Requests');
    // ...and the failures count on every other route too.
    expect((await kernel.inject({ url: '/api/gateway/me', token: kernel.adminToken })).statusCode).to.equal(429);
  });
});
