import net from 'node:net';
import { expect } from 'chai';
import { artifactsGateway } from './helpers/artifacts.js';
import { until } from './helpers/until.js';

/**
 * Attack (issue 12): an upload refused part-way (too many fields, a field too large, a second file,
 * a broken body) whose client then never stops sending. The server must answer and close the
 * connection, not read the endless rest of the body (the file limit no longer counts it).
 */
describe('attack: an endless body after a refused upload', function () {
  this.timeout(180_000);
  const gw = artifactsGateway({ maxFields: 4, maxFieldBytes: 512 }, { maxAttachmentBytes: 4096 });
  let port = 0;
  before(async () => {
    await gw.boot();
    port = Number(new URL((await gw.k.listen()).url).port);
  });
  after(() => gw.stop());

  /** Sends `head` chunked, then garbage forever; answers the status line and whether the server closed the connection. */
  async function endless(head: string): Promise<{ status: string; closed: boolean; sentAfter: number }> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let received = '';
    let closed = false;
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('close', () => (closed = true));
    socket.on('error', () => (closed = true));
    const chunk = (data: string | Buffer) => {
      const buf = Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (!socket.destroyed) socket.write(Buffer.concat([Buffer.from(`${buf.length.toString(16)}\r\n`), buf, Buffer.from('\r\n')]));
    };
    socket.write(`POST /api/gateway/attachments/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n`);
    chunk(head);
    let sentAfter = 0;
    const garbage = Buffer.alloc(16 * 1024, 0x61);
    const pump = setInterval(() => {
      if (received.includes('\r\n\r\n')) sentAfter += garbage.length;
      chunk(garbage);
    }, 20);
    try {
      await until(() => received.startsWith('HTTP/1.1 '), { what: 'the answer', deadline: 60_000 });
      // The connection must end while the client is still sending (a deadline, not a sleep).
      await until(() => closed, { what: 'the server to close the connection', deadline: 30_000 });
    } finally {
      clearInterval(pump);
      socket.destroy();
    }
    return { status: received.slice(9, 12), closed, sentAfter };
  }

  const field = (name: string, value: string) => `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

  it('closes the connection after refusing too many fields, a field too large, a second file or a broken body', async () => {
    const heads = [
      Array.from({ length: 8 }, (_, i) => field(`f${i}`, 'x')).join(''),
      field('session_id', 'x'.repeat(2000)),
      `${field('session_id', 's')}--B\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\na\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="b"\r\n\r\n`,
      `${field('session_id', 's')}--B\r\nContent-Disposition: form-data; name="other"; filename="a"\r\n\r\n`,
    ];
    for (const head of heads) {
      const { status, closed } = await endless(head);
      expect(status, head.slice(0, 60)).to.match(/^4\d\d$/);
      expect(closed).to.equal(true);
    }
  });

  it('survives a client that goes away in the middle of a file part it sent under another name', async () => {
    // Twenty times, each going away as soon as its bytes are handed to the kernel.
    for (let i = 0; i < 20; i++) {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.on('error', () => undefined);
      const closed = new Promise((resolve) => socket.once('close', resolve));
      const body = `${field('session_id', 's')}--B\r\nContent-Disposition: form-data; name="other"; filename="a.bin"\r\n\r\n${'z'.repeat(1000)}`;
      await new Promise<void>((resolve) => socket.write(`POST /api/gateway/attachments/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000\r\n\r\n${body}`, () => resolve()));
      socket.destroy();
      await closed;
    }
    // Still serving (an uncaught error in the upload's parser would have ended the process).
    const health = await until(async () => (await gw.get(gw.bob, '/api/gateway/workspace/policy')).statusCode, { what: 'the gateway to answer', ok: (s) => s === 200 });
    expect(health).to.equal(200);
  });
});
