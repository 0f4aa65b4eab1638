import net from 'node:net';
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { tempDir } from './helpers/paths.js';

/**
 * Attack (issue 12), on a real `keel serve` process: a non-admin starts an upload with a file part
 * under another name than `file` and goes away in the middle of it. The parser was destroyed with
 * that part's stream open, whose error nobody heard: an uncaught exception that ended the server.
 */
describe('attack: an abandoned upload of an ignored file part, on a real keel serve process', function () {
  this.timeout(180_000);
  const tmp = tempDir();
  const admin = 'keel_env_admin_token_attack_0123456789';
  let server: ServerProcess | undefined;
  after(async () => {
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it('keeps serving', async () => {
    server = await startServer(['--port', '0', '--data-dir', tmp.dir], { KEEL_ADMIN_TOKEN: admin });
    const created = await fetch(`${server.url}/api/gateway/admin/users`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ account: 'bob' }) });
    expect(created.status).to.equal(201);
    const bob = ((await created.json()) as { token: { token: string } }).token.token;
    const { port, hostname } = new URL(server.url);
    // Twenty times: whether the part's stream is still open when the connection ends depends on scheduling.
    for (let i = 0; i < 20; i++) {
      const socket = net.connect(Number(port), hostname);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.on('error', () => undefined);
      const closed = new Promise((resolve) => socket.once('close', resolve));
      const body = `--B\r\nContent-Disposition: form-data; name="session_id"\r\n\r\ns\r\n--B\r\nContent-Disposition: form-data; name="other"; filename="a.bin"\r\n\r\n${'z'.repeat(1000)}`;
      // Promises 100,000 bytes, sends the start of an ignored file part, and goes away as soon as the
      // bytes are handed to the kernel: the server reads the part, then the connection ends under it.
      await new Promise<void>((resolve) => socket.write(`POST /api/gateway/attachments/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000\r\n\r\n${body}`, () => resolve()));
      socket.destroy();
      await closed;
    }
    const res = await fetch(`${server.url}/api/gateway/workspace/policy`, { headers: { authorization: `Bearer ${bob}` } });
    expect(res.status).to.equal(200);
    expect(server.output()).to.not.match(/Unexpected end of file/);
  });
});
