/**
 * Every connection of the kernel's own listener is bounded (issue 9, "every socket is bounded"): a
 * client that sends headers slowly (slowloris) is cut off after server.http.headersTimeoutMs, one that
 * trickles a body past server.http.requestTimeoutMs gets 408 or is closed, while event streams and
 * WebSockets open longer than that carry on; connections beyond server.http.maxConnections or
 * server.http.connectionsPerSource are closed as they arrive and the ones already open keep working.
 * Raw TCP clients over a real listen(), with small configured values and no timing assertions.
 */
import net from 'node:net';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { socketProbePlugin } from './fixtures/socket-probe-plugin.js';
import { until } from './helpers/until.js';
import { SocketClient } from './helpers/socket-client.js';
import { openSse } from './helpers/sse.js';

const DEADLINE_MS = 30_000;

/** A raw HTTP/1.1 client on one TCP connection, optionally from a chosen loopback address. */
class RawHttp {
  received = '';
  closed = false;
  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => (this.received += chunk.toString('latin1')));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined); // a refused connection may be reset; 'close' follows
  }

  static connect(port: number, localAddress = '127.0.0.1'): Promise<RawHttp> {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const client = new RawHttp(socket);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(client));
      socket.once('error', reject);
    });
  }

  /** Responses received so far (status lines). */
  get answers(): number[] {
    return [...this.received.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
  }

  /** Sends a keep-alive GET of the health route and waits for its answer. */
  async health(): Promise<number> {
    const before = this.answers.length;
    this.socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await this.until(() => this.answers.length > before || this.closed, 'a health answer');
    return this.answers[before] ?? 0;
  }

  async until(check: () => boolean, what: string, ms = DEADLINE_MS): Promise<void> {
    await until(check, { what, deadline: ms });
  }

  /** Writes `bytes` one at a time, every `everyMs`, until the connection closes or they run out. */
  trickle(bytes: string, everyMs: number): void {
    let at = 0;
    const timer = setInterval(() => {
      if (this.closed || at >= bytes.length) return clearInterval(timer);
      this.socket.write(bytes[at++]!);
    }, everyMs);
    this.socket.once('close', () => clearInterval(timer));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

describe('connection limits: slow clients are cut off, long-lived responses are not', function () {
  this.timeout(120_000);
  const HEADERS_TIMEOUT_MS = 1_000;
  const REQUEST_TIMEOUT_MS = 2_000;
  let kernel: TestKernel;
  let port: number;
  let base: string;
  const cleanup: Array<() => void> = [];

  before(async () => {
    kernel = await createTestKernel({
      plugins: [{ plugin: hubPlugin }, socketProbePlugin],
      config: { server: { http: { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS } } },
    });
    ({ port, url: base } = await kernel.listen());
  });
  afterEach(() => {
    for (const done of cleanup.splice(0)) done();
  });
  after(() => kernel?.stop());

  it('cuts off a client that sends its headers a byte at a time (slowloris) after server.http.headersTimeoutMs', async () => {
    const slow = await RawHttp.connect(port);
    cleanup.push(() => slow.destroy());
    slow.socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Header bytes keep coming, far longer than the deadline below: only the server can end this.
    slow.trickle('X-Slow: ' + 'a'.repeat(10_000), 100);
    await slow.until(() => slow.closed, 'the server to close the slowloris connection');
    expect(slow.answers.every((status) => status === 408)).to.equal(true);
    expect((await fetch(`${base}/api/health`)).status).to.equal(200);
  });

  it('answers 408 or closes a request whose body trickles past server.http.requestTimeoutMs; event streams and WebSockets open longer carry on', async () => {
    // A stream and a socket opened first: by the time the slow body is cut, both are older than requestTimeoutMs.
    const controller = new AbortController();
    cleanup.push(() => controller.abort());
    const stream = await openSse(`${base}/socket-probe/stream`, { token: kernel.adminToken, signal: controller.signal });
    expect(stream.response.status).to.equal(200);
    await stream.collect({ until: (s) => s.events.length > 0, what: 'the opening event' });
    let streamEnded = false;
    void stream.collect({ until: () => false, deadline: 10 * 60_000 }).then(() => (streamEnded = stream.ended), () => undefined);

    const ws = await SocketClient.open(`${base.replace(/^http/, 'ws')}/socket-probe/echo`, { authorization: `Bearer ${kernel.adminToken}` });
    cleanup.push(() => ws.ws.terminate());

    const body = JSON.stringify({ id: 'slow-agent' });
    const slow = await RawHttp.connect(port);
    cleanup.push(() => slow.destroy());
    slow.socket.write(`POST /hub/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${kernel.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 10_000}\r\n\r\n`);
    slow.trickle(body + ' '.repeat(10_000), 100);
    await slow.until(() => slow.closed, 'the server to close the slow body');
    expect(slow.answers.every((status) => status === 408)).to.equal(true);

    expect(streamEnded, 'the event stream was cut').to.equal(false);
    expect(ws.closed, 'the WebSocket was closed').to.equal(null);
    const before = ws.frames.length;
    ws.ws.send('still here');
    await ws.until(() => ws.frames.length > before, 'the echo');
    expect(ws.frames[before]).to.deep.equal({ account: 'admin', echo: 'still here' });
    expect((await fetch(`${base}/api/health`)).status).to.equal(200);
  });
});

describe('connection limits: caps on open connections', function () {
  this.timeout(120_000);
  const MAX_CONNECTIONS = 5;
  const PER_SOURCE = 3;
  let kernel: TestKernel;
  let port: number;
  const held: RawHttp[] = [];

  before(async () => {
    kernel = await createTestKernel({
      plugins: [],
      config: { server: { http: { maxConnections: MAX_CONNECTIONS, connectionsPerSource: PER_SOURCE } } },
    });
    ({ port } = await kernel.listen());
  });
  afterEach(async () => {
    for (const client of held.splice(0)) client.destroy();
  });
  after(() => kernel?.stop());

  /** Opens a connection from `source` and tells whether the server serves it or closes it. */
  const tryConnect = async (source: string): Promise<{ client: RawHttp; served: boolean }> => {
    const client = await RawHttp.connect(port, source);
    held.push(client);
    const status = await client.health();
    return { client, served: status === 200 };
  };
  /** Until the server has let go of closed connections, a new one may still be refused. */
  const eventuallyServed = (source: string) => until(() => tryConnect(source).then((r) => r.served), (served) => served, DEADLINE_MS);

  it('closes a connection over server.http.connectionsPerSource (loopback included); that source\'s open ones and other sources keep working', async () => {
    const mine: RawHttp[] = [];
    for (let i = 0; i < PER_SOURCE; i++) {
      const { client, served } = await tryConnect('127.0.0.2');
      expect(served, `connection ${i + 1}`).to.equal(true);
      mine.push(client);
    }
    const over = await tryConnect('127.0.0.2');
    expect(over.served).to.equal(false);
    await over.client.until(() => over.client.closed, 'the refused connection to close');
    for (const client of mine) expect(await client.health()).to.equal(200);
    expect((await tryConnect('127.0.0.3')).served, 'another source').to.equal(true);
    mine[0]!.destroy();
    await eventuallyServed('127.0.0.2');
  });

  it('closes a connection over server.http.maxConnections; the open ones keep working and a freed place is reused', async () => {
    const open: RawHttp[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const { client, served } = await tryConnect(`127.0.1.${i + 1}`);
      expect(served, `connection ${i + 1}`).to.equal(true);
      open.push(client);
    }
    const over = await tryConnect('127.0.2.1');
    expect(over.served).to.equal(false);
    await over.client.until(() => over.client.closed, 'the refused connection to close');
    for (const client of open) expect(await client.health()).to.equal(200);
    open[0]!.destroy();
    await eventuallyServed('127.0.2.1');
  });
});
