/**
 * Stopping with live connections open (issue 9 item 18): SIGINT/SIGTERM on a real `keel serve`
 * with a hub socket (what the team page holds) and an event stream open closes the socket with
 * 1001, ends the stream and exits 0, also when a peer never answers the close handshake; and
 * `Kernel.stop()` does the same in process, whatever `server.shutdownTimeoutMs` is.
 */
import { expect } from 'chai';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { socketProbePlugin } from './fixtures/socket-probe-plugin.js';
import type { ServerProcess } from './helpers/cli.js';
import { serveHub } from './helpers/hub-serve.js';
import { tempDir } from './helpers/paths.js';
import { SOCKET_DEADLINE_MS, SocketClient } from './helpers/socket-client.js';
import { RawSocket } from './helpers/raw-socket.js';
import { openSse } from './helpers/sse.js';

/** Generous: the machine may be loaded; the old code never exited at all. */
const EXIT_DEADLINE_MS = 45_000;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms / 1000} s`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** An event stream that has delivered its first event; `ended` resolves when the server ends it. */
async function openStream(url: string, token: string): Promise<{ ended: Promise<void> }> {
  const stream = await openSse(url, { token });
  expect(stream.response.status).to.equal(200);
  await stream.collect({ until: (s) => s.events.length > 0, what: 'the first event' });
  // Read to the end (a reset also ends it); the callers bound the wait themselves, with `within`.
  const ended = stream.collect({ until: () => false, deadline: 10 * 60_000, what: 'the end of the stream' }).then(() => undefined);
  ended.catch(() => undefined);
  return { ended };
}

describe('stopping with sockets and streams open', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  const running: ServerProcess[] = [];
  before(() => (tmp = tempDir()));
  afterEach(() => {
    for (const s of running.splice(0)) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  });
  after(() => tmp.remove());

  const serve = async (server: Record<string, unknown> = {}) => {
    const hub = await serveHub(tmp.dir, server);
    running.push(hub.proc);
    return { proc: hub.proc, token: hub.adminToken, seatKey: await hub.seat('ann'), port: hub.port };
  };

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} with a hub socket and an event stream open: the socket gets 1001, the stream ends, the process exits 0`, async () => {
      const { proc, token, seatKey } = await serve();
      const socket = await SocketClient.open(`${proc.url.replace(/^http/, 'ws')}/hub/ws?token=${encodeURIComponent(seatKey)}`);
      const stream = await openStream(`${proc.url}/socket-probe/stream`, token);

      const code = await within(proc.stop(signal), EXIT_DEADLINE_MS, `exit after ${signal}`);
      expect(code).to.equal(0);
      expect((await socket.closedWith()).code).to.equal(1001);
      await within(stream.ended, SOCKET_DEADLINE_MS, 'the end of the stream');
      expect(proc.output()).to.contain(`Keel stopping (${signal})`);
    });
  }

  it('a peer that never answers the close handshake is cut off after server.shutdownTimeoutMs, and the process exits 0', async () => {
    const { proc, seatKey, port } = await serve({ shutdownTimeoutMs: 1000 });
    const { raw, answer } = await RawSocket.open(port, `/hub/ws?token=${encodeURIComponent(seatKey)}`);
    expect(answer.status).to.equal(101);
    raw.answerClose = false;

    const code = await within(proc.stop('SIGTERM'), EXIT_DEADLINE_MS, 'exit after SIGTERM');
    expect(code).to.equal(0);
    await raw.until(() => raw.ended, 'the connection to end');
    expect(raw.closeCode).to.equal(1001);
  });

  it('a second signal of either kind, while a stop waits for a peer, ends the process at once', async () => {
    const { proc, seatKey, port } = await serve({ shutdownTimeoutMs: 600_000 });
    const { raw, answer } = await RawSocket.open(port, `/hub/ws?token=${encodeURIComponent(seatKey)}`);
    expect(answer.status).to.equal(101);
    raw.answerClose = false;

    proc.child.kill('SIGTERM');
    await proc.waitFor(/Keel stopping \(SIGTERM\)/);
    // The stop would wait ten minutes for the peer; a Ctrl-C now is the user insisting.
    proc.child.kill('SIGINT');
    expect(await within(proc.exited, EXIT_DEADLINE_MS, 'exit after the second signal')).to.equal(null);
    expect(proc.child.signalCode).to.equal('SIGINT');
    raw.destroy();
  });

  it('Kernel.stop() closes every socket with 1001 and ends streams that ignore their signal, however long shutdownTimeoutMs is', async () => {
    const kernel = await createTestKernel({ plugins: [{ plugin: hubPlugin }, socketProbePlugin], config: { server: { shutdownTimeoutMs: 600_000 } } });
    const { url } = await kernel.listen();
    const seat = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'ann' } })).json<{ api_key: string }>().api_key;
    const sockets = await Promise.all([`/hub/ws?token=${seat}`, '/socket-probe/misbehave'].map((p) => SocketClient.open(`${url.replace(/^http/, 'ws')}${p}`)));
    const stream = await openStream(`${url}/socket-probe/stream`, kernel.adminToken);

    await within(kernel.stop(), EXIT_DEADLINE_MS, 'Kernel.stop()');
    expect((await Promise.all(sockets.map((s) => s.closedWith()))).map((c) => c.code)).to.deep.equal([1001, 1001]);
    await within(stream.ended, SOCKET_DEADLINE_MS, 'the end of the stream');
  });
});
