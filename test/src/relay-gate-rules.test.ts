/**
 * The relay's bearer gate (issue 16 item 5; reference §1.1, §1.2, §7): the relay token (file or
 * RELAY_TOKEN), the bearer check and every way around it, unmatched `/v1/*` paths, the failed-auth
 * block, concurrency slots, the token bucket and `activity_only`, each through the HTTP front door.
 */
import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type InjectRequest, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

interface RelayError {
  error: { message: string; type: string; code: string | null; param?: string | null };
  detail: string;
}

const quiet = { server: { logLevel: 'silent' } };

function bootRelay(config: Record<string, unknown> = {}, extra: { dataDir?: string } = {}): Promise<TestKernel> {
  return createTestKernel({ plugins: [{ plugin: relayPlugin, config }], config: quiet, ...extra });
}

function tokenOf(kernel: TestKernel): string {
  return readFileSync(path.join(kernel.dataDir, 'plugins', 'relay', 'relay-token'), 'utf8').trim();
}

function expectRelayError(res: InjectResponse, status: number, code: string, type: string): RelayError {
  expect(res.statusCode, res.body).to.equal(status);
  const body = res.json<RelayError>();
  expect(body.error.code, res.body).to.equal(code);
  expect(body.error.type, res.body).to.equal(type);
  expect(body.detail).to.equal(body.error.message);
  return body;
}

const expect401 = (res: InjectResponse, what = '') => {
  expect(res.statusCode, `${what}: ${res.body}`).to.equal(401);
  expectRelayError(res, 401, 'invalid_api_key', 'authentication_error');
};

describe('relay gate: the relay token', function () {
  this.timeout(60_000);

  it('is created at first start in <data>/plugins/relay/relay-token, mode 0600, 32 random bytes base64url, and kept across restarts', async () => {
    const tmp = tempDir();
    try {
      let kernel = await bootRelay({}, { dataDir: tmp.dir });
      const file = path.join(tmp.dir, 'plugins', 'relay', 'relay-token');
      const token = tokenOf(kernel);
      expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      await kernel.stop();
      kernel = await bootRelay({}, { dataDir: tmp.dir });
      expect(tokenOf(kernel)).to.equal(token);
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      await kernel.stop();
    } finally {
      tmp.remove();
    }
  });

  it('takes RELAY_TOKEN from the environment over the file', async () => {
    process.env.RELAY_TOKEN = 'env-relay-token-0123456789';
    let kernel: TestKernel | undefined;
    try {
      kernel = await bootRelay();
      expect((await kernel.inject({ url: '/v1/relay/status', token: 'env-relay-token-0123456789' })).statusCode).to.equal(200);
      expect401(await kernel.inject({ url: '/v1/relay/status', token: 'some-other-token' }));
      const status = (await kernel.inject({ url: '/v1/relay/status', token: 'env-relay-token-0123456789' })).json<{ relay: { token: { source: string } } }>();
      expect(status.relay.token.source).to.equal('env');
    } finally {
      delete process.env.RELAY_TOKEN;
      await kernel?.stop();
    }
  });

  it('refuses to start with a sentence when auth is required, no token exists and autoGenerateToken is off', async () => {
    const err = await bootRelay({ auth: { autoGenerateToken: false } }).then((k) => k.stop().then(() => null), (e: Error) => e);
    expect(err?.message).to.match(/The relay needs its token and has none: set RELAY_TOKEN, or write one into .*relay-token/);
  });

  it('open mode (requireBearerAuth false) skips the token check only: no token needed, the bucket still applies', async () => {
    const kernel = await bootRelay({ auth: { requireBearerAuth: false }, gate: { rateLimitBurst: 2, rateLimitPerMinute: 1 } });
    try {
      expect((await kernel.inject({ url: '/v1/relay/status' })).statusCode).to.equal(200);
      expect((await kernel.inject({ url: '/v1/relay/status', token: 'anything' })).statusCode).to.equal(200);
      expectRelayError(await kernel.inject({ url: '/v1/relay/status' }), 429, 'rate_limit_exceeded', 'rate_limit_error');
    } finally {
      await kernel.stop();
    }
  });
});

describe('relay gate: the bearer check', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let token: string;
  // Generous limits: these tests attack the token check, not the limits.
  before(async () => {
    kernel = await bootRelay({ gate: { rateLimitBurst: 10_000, rateLimitPerMinute: 10_000, failedAuthMaxAttempts: 10_000 } });
    token = tokenOf(kernel);
  });
  after(() => kernel?.stop());

  it('answers 401 authentication_error / invalid_api_key in the relay envelope without a token, with WWW-Authenticate', async () => {
    const res = await kernel.inject({ url: '/v1/relay/status' });
    expect401(res);
    expect(res.headers['www-authenticate']).to.equal('Bearer');
    expect(res.json<RelayError>().error.message).to.match(/Missing or invalid relay bearer token/);
  });

  it('refuses a wrong token, a prefix or extension of the right one, and the right one in any other header or the query', async () => {
    const attempts: Array<[string, InjectRequest]> = [
      ['a wrong token', { url: '/v1/relay/status', token: 'wrong-token' }],
      ['the token minus its last character', { url: '/v1/relay/status', token: token.slice(0, -1) }],
      ['the token with a suffix', { url: '/v1/relay/status', token: `${token}x` }],
      ['x-api-key', { url: '/v1/relay/status', headers: { 'x-api-key': token } }],
      ['api-key', { url: '/v1/relay/status', headers: { 'api-key': token } }],
      ['Authorization without a scheme', { url: '/v1/relay/status', headers: { authorization: token } }],
      ['Authorization: Basic', { url: '/v1/relay/status', headers: { authorization: `Basic ${Buffer.from(`user:${token}`).toString('base64')}` } }],
      ['Authorization: Token', { url: '/v1/relay/status', headers: { authorization: `Token ${token}` } }],
      ['the query', { url: `/v1/relay/status?api_key=${token}&token=${token}` }],
      ['a cookie', { url: '/v1/relay/status', headers: { cookie: `token=${token}` } }],
      ['the kernel admin token', { url: '/v1/relay/status', token: kernel.adminToken }],
    ];
    for (const [what, request] of attempts) expect401(await kernel.inject(request), what);
  });

  it('accepts the Bearer scheme in any case (lowercase bearer), and still refuses a bad token so sent', async () => {
    expect((await kernel.inject({ url: '/v1/relay/status', headers: { authorization: `bearer ${token}` } })).statusCode).to.equal(200);
    expect((await kernel.inject({ url: '/v1/relay/status', headers: { authorization: `BEARER ${token}` } })).statusCode).to.equal(200);
    expect401(await kernel.inject({ url: '/v1/relay/status', headers: { authorization: 'bearer wrong-token' } }));
  });

  it('guards unmatched /v1 paths with the relay token: 401 before 404 or 405, however spelled, then 404/405 in the relay envelope', async () => {
    const spellings = ['/v1/nope', '/v1/relay/nope', '//v1/nope', '/v1/x/../nope', '/v1%2Fnope', '/V1/nope', '/v1/./relay/unknown'];
    for (const url of spellings) {
      expect401(await kernel.inject({ url }), url);
      expect401(await kernel.inject({ url, token: 'wrong-token' }), `${url} with a bad token`);
      expect401(await kernel.inject({ url, token: kernel.adminToken }), `${url} with the kernel's token`);
    }
    expect401(await kernel.inject({ method: 'DELETE', url: '/v1/relay/status' }), 'DELETE on a known path');
    expectRelayError(await kernel.inject({ url: '/v1/nope', token }), 404, 'not_found', 'not_found_error');
    const wrongMethod = await kernel.inject({ method: 'DELETE', url: '/v1/relay/status', token });
    expectRelayError(wrongMethod, 405, 'method_not_allowed', 'invalid_request_error');
    expect(wrongMethod.headers.allow).to.equal('HEAD, GET');
  });

  it('counts bad relay tokens in its own block only: far more than the kernel\'s failed sign-in burst (20) never throttles the right token', async () => {
    for (let i = 0; i < 30; i++) expect401(await kernel.inject({ url: '/v1/relay/status', token: `wrong-${i}` }));
    expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
  });
});

describe('relay gate: the failed-auth block', function () {
  this.timeout(60_000);

  it('blocks an address after failedAuthMaxAttempts bad or missing tokens: 429 rate_limit_error / ip_temporarily_blocked with Retry-After, even for the right token; other addresses are not', async () => {
    const kernel = await bootRelay({ gate: { failedAuthMaxAttempts: 3, failedAuthBlockSeconds: 900 } });
    try {
      const token = tokenOf(kernel);
      const from = '10.0.0.7';
      expect401(await kernel.inject({ url: '/v1/relay/status', token: 'wrong-1', remoteAddress: from }));
      expect401(await kernel.inject({ url: '/v1/relay/status', remoteAddress: from }));
      expect401(await kernel.inject({ url: '/v1/nope', token: 'wrong-3', remoteAddress: from }));
      const blocked = await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: from });
      expectRelayError(blocked, 429, 'ip_temporarily_blocked', 'rate_limit_error');
      const retryAfter = Number(blocked.headers['retry-after']);
      expect(retryAfter).to.be.within(1, 900);
      expect(blocked.json<RelayError>().error.message).to.match(/blocked for \d+ more s/);
      // Unmatched paths and activity_only are refused the same way while blocked.
      expectRelayError(await kernel.inject({ url: '/v1/nope', token, remoteAddress: from }), 429, 'ip_temporarily_blocked', 'rate_limit_error');
      expectRelayError(await kernel.inject({ url: '/v1/relay/status?activity_only=true', token, remoteAddress: from }), 429, 'ip_temporarily_blocked', 'rate_limit_error');
      expect((await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: '10.0.0.8' })).statusCode).to.equal(200);
    } finally {
      await kernel.stop();
    }
  });

  it('ends the block after failedAuthBlockSeconds', async () => {
    const kernel = await bootRelay({ gate: { failedAuthMaxAttempts: 2, failedAuthBlockSeconds: 1 } });
    try {
      const token = tokenOf(kernel);
      expect401(await kernel.inject({ url: '/v1/relay/status', token: 'wrong' }));
      expect401(await kernel.inject({ url: '/v1/relay/status', token: 'wrong' }));
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(429);
      await until(async () => (await kernel.inject({ url: '/v1/relay/status', token })).statusCode, { what: 'the block to end', ok: (s) => s === 200 });
    } finally {
      await kernel.stop();
    }
  });

  it('ignores X-Forwarded-For when trustXForwardedFor is off: a spoofed address per attempt does not escape the block', async () => {
    const kernel = await bootRelay({ gate: { failedAuthMaxAttempts: 3 } });
    try {
      const token = tokenOf(kernel);
      for (let i = 0; i < 3; i++) expect401(await kernel.inject({ url: '/v1/relay/status', token: 'wrong', headers: { 'x-forwarded-for': `192.0.2.${i}` } }));
      const res = await kernel.inject({ url: '/v1/relay/status', token, headers: { 'x-forwarded-for': '198.51.100.9' } });
      expectRelayError(res, 429, 'ip_temporarily_blocked', 'rate_limit_error');
    } finally {
      await kernel.stop();
    }
  });

  it('reads the first X-Forwarded-For entry when trustXForwardedFor is on, and shows it as the status\'s client ip', async () => {
    // The local client refuses to run behind a trusted proxy (its guardrail): off here.
    const kernel = await bootRelay({ gate: { failedAuthMaxAttempts: 2, trustXForwardedFor: true }, cli: { enabled: false } });
    try {
      const token = tokenOf(kernel);
      for (let i = 0; i < 2; i++) expect401(await kernel.inject({ url: '/v1/relay/status', token: 'wrong', headers: { 'x-forwarded-for': '192.0.2.1, 10.0.0.1' } }));
      expectRelayError(await kernel.inject({ url: '/v1/relay/status', token, headers: { 'x-forwarded-for': '192.0.2.1' } }), 429, 'ip_temporarily_blocked', 'rate_limit_error');
      const other = await kernel.inject({ url: '/v1/relay/status', token, headers: { 'x-forwarded-for': '192.0.2.2, 192.0.2.1' } });
      expect(other.statusCode).to.equal(200);
      expect(other.json<{ security: { client: { ip: string } } }>().security.client.ip).to.equal('192.0.2.2');
    } finally {
      await kernel.stop();
    }
  });

  it('counts bad tokens on activity_only calls toward the block', async () => {
    const kernel = await bootRelay({ gate: { failedAuthMaxAttempts: 3 } });
    try {
      const token = tokenOf(kernel);
      for (let i = 0; i < 3; i++) expect401(await kernel.inject({ url: '/v1/relay/status?activity_only=true', token: 'wrong' }));
      expectRelayError(await kernel.inject({ url: '/v1/relay/status', token }), 429, 'ip_temporarily_blocked', 'rate_limit_error');
    } finally {
      await kernel.stop();
    }
  });
});

describe('relay gate: the token bucket', function () {
  this.timeout(60_000);

  it('allows rateLimitBurst requests, then 429 rate_limit_error / rate_limit_exceeded with Retry-After 1; unauthenticated requests spend it too', async () => {
    const kernel = await bootRelay({ gate: { rateLimitBurst: 3, rateLimitPerMinute: 1 } });
    try {
      const token = tokenOf(kernel);
      for (let i = 0; i < 3; i++) expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      const refused = await kernel.inject({ url: '/v1/relay/status', token });
      expectRelayError(refused, 429, 'rate_limit_exceeded', 'rate_limit_error');
      expect(refused.headers['retry-after']).to.equal('1');
      // The bucket is per address, and runs before the token check.
      const other = '10.1.1.1';
      for (let i = 0; i < 3; i++) expect401(await kernel.inject({ url: '/v1/relay/status', remoteAddress: other }));
      expectRelayError(await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: other }), 429, 'rate_limit_exceeded', 'rate_limit_error');
      expect((await kernel.inject({ url: '/v1/relay/status', token, remoteAddress: '10.1.1.2' })).statusCode).to.equal(200);
    } finally {
      await kernel.stop();
    }
  });

  it('refills at rateLimitPerMinute / 60 per second', async () => {
    const kernel = await bootRelay({ gate: { rateLimitBurst: 1, rateLimitPerMinute: 600 } });
    try {
      const token = tokenOf(kernel);
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      await until(async () => (await kernel.inject({ url: '/v1/relay/status', token })).statusCode, { what: 'the bucket to refill', ok: (s) => s === 200 });
    } finally {
      await kernel.stop();
    }
  });

  it('activity_only takes no token from the bucket: many pulses leave the whole burst', async () => {
    const kernel = await bootRelay({ gate: { rateLimitBurst: 2, rateLimitPerMinute: 1 } });
    try {
      const token = tokenOf(kernel);
      for (let i = 0; i < 10; i++) {
        const pulse = await kernel.inject({ url: '/v1/relay/status?activity_only=true', token });
        expect(pulse.statusCode, pulse.body).to.equal(200);
      }
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(200);
      expect((await kernel.inject({ url: '/v1/relay/status', token })).statusCode).to.equal(429);
      // An empty bucket does not stop the pulse either.
      expect((await kernel.inject({ url: '/v1/relay/status?activity_only=true', token })).statusCode).to.equal(200);
    } finally {
      await kernel.stop();
    }
  });
});

/** Sends the headers of a POST and half its body: the gate has admitted it, and it stays in flight until `finish`. */
async function openRequest(port: number, token: string): Promise<{ finish: () => Promise<number> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.write(`POST /v1/embeddings HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{}`);
  let data = '';
  socket.on('data', (d: Buffer) => (data += d.toString()));
  return {
    finish: async () => {
      socket.write('  ');
      await until(() => /^HTTP\/1\.1 (\d+)/.exec(data), { what: 'the held request to be answered' });
      socket.destroy();
      return Number(/^HTTP\/1\.1 (\d+)/.exec(data)![1]);
    },
  };
}

function get(url: string, token: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

describe('relay gate: concurrency slots per address', function () {
  this.timeout(60_000);

  it('refuses a request beyond concurrentRequestsPerIp in flight with 429 too_many_concurrent_requests (Retry-After 1), frees the slot when the response ends; activity_only needs no slot', async () => {
    const kernel = await bootRelay({ gate: { concurrentRequestsPerIp: 1 } });
    try {
      const token = tokenOf(kernel);
      const { url, port } = await kernel.listen();
      const held = await openRequest(port, token);
      // The held request has its slot once the gate admitted it: the next one is refused.
      const refused = await until(() => get(`${url}/v1/relay/status`, token), { what: 'a second request to be refused for concurrency', ok: (r) => r.status === 429 });
      expect(JSON.parse(refused.body).error.code).to.equal('too_many_concurrent_requests');
      expect(refused.headers['retry-after']).to.equal('1');
      expect((await get(`${url}/v1/relay/status?activity_only=true`, token)).status).to.equal(200);
      const status = JSON.parse((await until(() => get(`${url}/v1/relay/status?activity_only=true`, token), { what: 'a pulse', ok: (r) => r.status === 200 })).body);
      expect(status).to.have.keys('requests_total');
      expect(await held.finish()).to.equal(501);
      await until(() => get(`${url}/v1/relay/status`, token), { what: 'the slot to be free once the response ended', ok: (r) => r.status === 200 });
    } finally {
      await kernel.stop();
    }
  });
});
