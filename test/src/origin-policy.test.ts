/**
 * The browser origin allowlist judges an Origin against the address the server listens on and
 * `server.origins`, never against the request's Host header (issue 9 item 13): a page on a name the
 * attacker controls (DNS rebinding) sends a matching Host and Origin and must still be refused.
 */
import http from 'node:http';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';

/** GET over a real connection with exactly these headers (fetch would not send our Host). */
function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('origin allowlist: the server’s own origin is its listen address, not the Host header', () => {
  let kernel: TestKernel;
  let port: number;
  before(async () => {
    kernel = await createTestKernel({ plugins: [probePlugin], config: { server: { origins: ['https://app.example.com'] } } });
    ({ port } = await kernel.listen());
  });
  after(() => kernel.stop());

  const me = (origin: string, host = `127.0.0.1:${port}`) => get(port, '/api/gateway/me', { origin, host, authorization: `Bearer ${kernel.adminToken}` });

  it('refuses an Origin that only matches the Host header the request chose', async () => {
    for (const name of ['evil.example', 'rebind.attacker.test']) {
      const res = await me(`http://${name}:${port}`, `${name}:${port}`);
      expect(res.status, name).to.equal(403);
      expect(JSON.parse(res.body).detail.message).to.contain('server.origins');
    }
    // The case the old rule let through outright: Origin and Host both say localhost:80.
    expect((await me('http://localhost:80', 'localhost:80')).status).to.equal(403);
  });

  it('allows the listen address and its loopback aliases, with CORS headers', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, `HTTP://LOCALHOST:${port}/`]) {
      const res = await me(origin);
      expect(res.status, origin).to.equal(200);
      expect(res.headers['access-control-allow-origin'], origin).to.equal(origin);
    }
  });

  it('refuses the right host on another port or scheme, and allows what server.origins lists', async () => {
    expect((await me(`http://127.0.0.1:${port + 1}`)).status).to.equal(403);
    expect((await me(`https://127.0.0.1:${port}`)).status).to.equal(403);
    expect((await me('https://app.example.com')).status).to.equal(200);
  });
});
