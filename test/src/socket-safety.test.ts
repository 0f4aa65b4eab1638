/**
 * No socket of any plugin can take the process down, and none opens for a caller the plugin would
 * refuse (issue 9 items 1, 9, 13, 17). Through a real listener with a raw TCP client: frames with
 * invalid UTF-8, RSV1 set or over the size limit, with and without a key; refusals on the upgrade
 * (401, 403, foreign Origin 403, per-account cap 429); listeners that throw or reject; deep JSON on
 * the hub socket; and the per-account cap on event streams.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';
import { socketProbePlugin } from './fixtures/socket-probe-plugin.js';
import { serveHub, type ServedHub } from './helpers/hub-serve.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/gateway-runs.js';
import { clientFrame, OPCODE, RawSocket } from './helpers/raw-socket.js';
import { SocketClient } from './helpers/socket-client.js';
import { openSse } from './helpers/sse.js';

const MAX_PAYLOAD = 64 * 1024;
const SOCKETS_PER_ACCOUNT = 3;
const STREAMS_PER_ACCOUNT = 2;

/** The three frames that used to end the process. */
const BAD_FRAMES = {
  'invalid UTF-8': { frame: () => clientFrame(OPCODE.text, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), close: 1007 },
  'RSV1 set': { frame: () => clientFrame(OPCODE.text, '{"type":"ping"}', { rsv1: true }), close: 1002 },
  'over the size limit': { frame: () => clientFrame(OPCODE.text, `"${'x'.repeat(MAX_PAYLOAD + 16)}"`), close: 1009 },
} as const;

describe('socket safety: the kernel owns every handshake and contains every socket', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  let port: number;
  let base: string;
  const keys: Record<string, string> = {};
  const cleanup: Array<() => void> = [];

  before(async () => {
    kernel = await createTestKernel({
      plugins: [{ plugin: hubPlugin }, socketProbePlugin],
      config: { server: { origins: ['https://app.example.com'], live: { socketsPerAccount: SOCKETS_PER_ACCOUNT, streamsPerAccount: STREAMS_PER_ACCOUNT, socketMaxPayloadBytes: MAX_PAYLOAD } } },
    });
    ({ port, url: base } = await kernel.listen());
    for (const id of ['ann', 'bob', 'cat', 'dan']) {
      const res = await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id } });
      expect(res.statusCode, res.body).to.equal(200);
      keys[id] = res.json<{ api_key: string }>().api_key;
    }
  });
  afterEach(() => {
    for (const done of cleanup.splice(0)) done();
  });
  after(() => kernel?.stop());

  const hubWs = (key: string) => `${base.replace(/^http/, 'ws')}/hub/ws?token=${encodeURIComponent(key)}`;
  const healthy = async () => (await fetch(`${base}/api/health`)).status === 200;
  /** A hub socket of `key` that answers ping with pong right now. */
  const answersPing = async (client: SocketClient) => {
    await client.reply({ type: 'ping' }, ['pong']);
    return true;
  };

  for (const [name, bad] of Object.entries(BAD_FRAMES)) {
    it(`a frame with ${name} closes only that socket (${bad.close}); the process, health and other sockets carry on`, async () => {
      const bystander = await SocketClient.open(hubWs(keys.ann!));
      cleanup.push(() => bystander.ws.terminate());
      const { raw, answer } = await RawSocket.open(port, `/hub/ws?token=${encodeURIComponent(keys.bob!)}`);
      cleanup.push(() => raw.destroy());
      expect(answer.status).to.equal(101);
      raw.send(bad.frame());
      await raw.until(() => raw.ended, 'the server to end the connection');
      expect(raw.closeCode).to.equal(bad.close);
      expect(await healthy()).to.equal(true);
      expect(await answersPing(bystander)).to.equal(true);
    });

    it(`without a key, a frame with ${name} never reaches a parser: the upgrade is refused with 401`, async () => {
      const { raw, answer } = await RawSocket.open(port, '/hub/ws', {}, bad.frame());
      cleanup.push(() => raw.destroy());
      expect(answer.status).to.equal(401);
      expect(JSON.parse(answer.body)).to.deep.equal({ detail: 'missing bearer token' });
      expect(answer.headers['www-authenticate']).to.equal('Bearer');
      await raw.until(() => raw.ended, 'the server to end the connection');
      expect(raw.frames).to.deep.equal([]);
      expect(await healthy()).to.equal(true);
    });
  }

  it('refuses an unknown key with 401 and a blocked seat with 403 on the upgrade, in the hub error shape', async () => {
    const unknown = await RawSocket.open(port, '/hub/ws?token=agora_nope');
    cleanup.push(() => unknown.raw.destroy());
    expect(unknown.answer.status).to.equal(401);
    expect(JSON.parse(unknown.answer.body)).to.deep.equal({ detail: 'invalid api key' });

    const op = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'op', operator: true } })).json<{ api_key: string }>().api_key;
    expect((await kernel.inject({ method: 'POST', url: '/hub/hub/blocks', token: op, payload: { agent: 'dan', reason: 'spam' } })).statusCode).to.equal(200);
    const blocked = await RawSocket.open(port, `/hub/ws?token=${keys.dan}`);
    cleanup.push(() => blocked.raw.destroy());
    expect(blocked.answer.status).to.equal(403);
    expect(JSON.parse(blocked.answer.body).detail).to.match(/^you are banned by op from this hub — spam\./);
  });

  it('a plugin listener that throws or rejects closes its socket with 1011, never the process', async () => {
    for (const poison of ['throw', 'reject']) {
      const { raw, answer } = await RawSocket.open(port, '/socket-probe/misbehave');
      cleanup.push(() => raw.destroy());
      expect(answer.status).to.equal(101);
      raw.sendText('ping');
      await raw.until(() => raw.frames.some((f) => f.payload.toString() === 'pong'), 'a pong');
      raw.sendText(poison);
      await raw.until(() => raw.closeCode !== null, `the close after '${poison}'`);
      expect(raw.closeCode, poison).to.equal(1011);
      expect(await healthy()).to.equal(true);
    }
  });

  it('an authenticate that fails unexpectedly answers 500 in the plugin error shape, and nothing opens', async () => {
    const { raw, answer } = await RawSocket.open(port, '/socket-probe/broken-auth');
    cleanup.push(() => raw.destroy());
    expect(answer.status).to.equal(500);
    expect(JSON.parse(answer.body).detail).to.equal('The server could not check this connection; the error is in its log.');
    expect(await healthy()).to.equal(true);
  });

  it('checks Origin on the upgrade like every route: foreign and Host-spoofed origins 403, own and listed origins open', async () => {
    const path = `/hub/ws?token=${encodeURIComponent(keys.cat!)}`;
    const foreign = await RawSocket.open(port, path, { Origin: 'https://evil.example' });
    cleanup.push(() => foreign.raw.destroy());
    expect(foreign.answer.status).to.equal(403);
    expect(JSON.parse(foreign.answer.body).detail).to.contain('server.origins');
    // DNS rebinding: a name the attacker controls, sent as both Origin and Host.
    const spoofed = await RawSocket.open(port, path, { Origin: `http://evil.example:${port}`, Host: `evil.example:${port}` });
    cleanup.push(() => spoofed.raw.destroy());
    expect(spoofed.answer.status).to.equal(403);
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'https://app.example.com']) {
      const ok = await RawSocket.open(port, path, { Origin: origin });
      expect(ok.answer.status, origin).to.equal(101);
      ok.raw.destroy();
    }
  });

  it('refuses an account over server.live.socketsPerAccount with 429 on the upgrade; other accounts and freed places are unaffected', async () => {
    const seat = (await kernel.inject({ method: 'POST', url: '/hub/agents', token: kernel.adminToken, payload: { id: 'capped' } })).json<{ api_key: string }>().api_key;
    const held: RawSocket[] = [];
    for (let i = 0; i < SOCKETS_PER_ACCOUNT; i++) {
      const { raw, answer } = await RawSocket.open(port, `/hub/ws?token=${seat}`);
      cleanup.push(() => raw.destroy());
      expect(answer.status).to.equal(101);
      held.push(raw);
    }
    const over = await RawSocket.open(port, `/hub/ws?token=${seat}`);
    cleanup.push(() => over.raw.destroy());
    expect(over.answer.status).to.equal(429);
    expect(JSON.parse(over.answer.body).detail).to.equal(`'hub-seat:capped' already has ${SOCKETS_PER_ACCOUNT} sockets open, the most one account may hold at once (server.live.socketsPerAccount). Close one and try again.`);

    const other = await RawSocket.open(port, `/hub/ws?token=${keys.cat}`);
    cleanup.push(() => other.raw.destroy());
    expect(other.answer.status).to.equal(101);

    held[0]!.destroy();
    await until(async () => {
      const again = await RawSocket.open(port, `/hub/ws?token=${seat}`);
      cleanup.push(() => again.raw.destroy());
      return again.answer.status === 101;
    }, (freed) => freed);
  });

  it('counts kernel accounts across routes: the echo socket refuses a bad token with 401 and caps the account', async () => {
    const refused = await RawSocket.open(port, '/socket-probe/echo', { Authorization: 'Bearer keel_nope' });
    cleanup.push(() => refused.raw.destroy());
    expect(refused.answer.status).to.equal(401);
    expect(JSON.parse(refused.answer.body)).to.deep.equal({ detail: 'Send a Keel token: Authorization: Bearer <token>.' });

    const url = `${base.replace(/^http/, 'ws')}/socket-probe/echo`;
    const clients: SocketClient[] = [];
    for (let i = 0; i < SOCKETS_PER_ACCOUNT; i++) {
      const c = await SocketClient.open(url, { authorization: `Bearer ${kernel.adminToken}` });
      cleanup.push(() => c.ws.terminate());
      clients.push(c);
    }
    clients[0]!.ws.send('hello');
    await clients[0]!.until(() => clients[0]!.frames.length > 0, 'the echo');
    expect(clients[0]!.frames[0]).to.deep.equal({ account: 'admin', echo: 'hello' });
    const over = await RawSocket.open(port, '/socket-probe/echo', { Authorization: `Bearer ${kernel.adminToken}` });
    cleanup.push(() => over.raw.destroy());
    expect(over.answer.status).to.equal(429);
    expect(JSON.parse(over.answer.body).detail).to.deep.include({ reason_code: 'too_many_sockets' });
  });

  it('answers a hub frame nested deeper than socketFrameMaxDepth with an error frame (400); the socket carries on', async () => {
    const client = await SocketClient.open(hubWs(keys.ann!));
    cleanup.push(() => client.ws.terminate());
    const deep = `{"type":"post","channel":"commons","body":"deep","data":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    client.ws.send(deep);
    await client.until(() => client.frames.some((f) => f.type === 'error'), 'the error frame');
    expect(client.frames.find((f) => f.type === 'error')).to.deep.equal({ type: 'error', detail: 'malformed frame: JSON nested deeper than 64 levels', status: 400 });
    expect(await answersPing(client)).to.equal(true);
    // A frame within the limit still posts.
    client.ws.send(JSON.stringify({ type: 'post', channel: 'commons', body: 'shallow', data: { a: [[1]] } }));
    await client.until(() => client.frames.some((f) => f.type === 'posted'), 'the posted frame');
  });

  describe('event streams per account', () => {
    const open = async (token: string): Promise<{ status: number; body: unknown; abort: () => void }> => {
      const controller = new AbortController();
      const stream = await openSse(`${base}/socket-probe/stream`, { token, signal: controller.signal });
      const res = stream.response;
      if (res.status !== 200) return { status: res.status, body: await res.json(), abort: () => controller.abort() };
      await stream.collect({ until: (s) => s.events.length > 0, what: 'the first event' }); // the stream is admitted and open
      return { status: 200, body: null, abort: () => controller.abort() };
    };

    it('refuses an account over server.live.streamsPerAccount with 429 in the route error shape; other accounts and freed places are unaffected', async () => {
      const held: Array<{ abort: () => void }> = [];
      for (let i = 0; i < STREAMS_PER_ACCOUNT; i++) {
        const s = await open(kernel.adminToken);
        cleanup.push(s.abort);
        expect(s.status).to.equal(200);
        held.push(s);
      }
      const over = await open(kernel.adminToken);
      expect(over.status).to.equal(429);
      expect(over.body).to.deep.equal({ detail: { reason_code: 'too_many_streams', message: `Account 'admin' already has ${STREAMS_PER_ACCOUNT} event streams open, the most one account may hold at once (server.live.streamsPerAccount). Close one and try again.` } });

      const created = await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'streamer', tenant: 'default', roles: [] } });
      expect(created.statusCode, created.body).to.equal(201);
      const other = await open(created.json<{ token: { token: string } }>().token.token);
      cleanup.push(other.abort);
      expect(other.status).to.equal(200);

      held[0]!.abort();
      await until(async () => {
        const again = await open(kernel.adminToken);
        cleanup.push(again.abort);
        return again.status === 200;
      }, (freed) => freed);
    });
  });
});

describe('socket safety on a real keel serve process', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  let hub: ServedHub;
  before(async () => {
    tmp = tempDir();
    hub = await serveHub(tmp.dir, { live: { socketMaxPayloadBytes: MAX_PAYLOAD } });
  });
  after(async () => {
    if (hub?.proc.child.exitCode === null) await hub.proc.stop('SIGKILL');
    tmp?.remove();
  });

  it('survives every bad frame with and without a key and misbehaving plugin listeners; health and other sockets keep answering', async () => {
    const [ann, bob] = [await hub.seat('ann'), await hub.seat('bob')];
    const wsBase = hub.proc.url.replace(/^http/, 'ws');
    const bystander = await SocketClient.open(`${wsBase}/hub/ws?token=${encodeURIComponent(ann)}`);
    const sockets: RawSocket[] = [];
    try {
      for (const [name, bad] of Object.entries(BAD_FRAMES)) {
        const keyed = await RawSocket.open(hub.port, `/hub/ws?token=${encodeURIComponent(bob)}`);
        sockets.push(keyed.raw);
        expect(keyed.answer.status, name).to.equal(101);
        keyed.raw.send(bad.frame());
        await keyed.raw.until(() => keyed.raw.ended, `the end of the socket after ${name}`);
        expect(keyed.raw.closeCode, name).to.equal(bad.close);

        const keyless = await RawSocket.open(hub.port, '/hub/ws', {}, bad.frame());
        sockets.push(keyless.raw);
        expect(keyless.answer.status, name).to.equal(401);
      }
      for (const poison of ['throw', 'reject']) {
        const { raw } = await RawSocket.open(hub.port, '/socket-probe/misbehave');
        sockets.push(raw);
        raw.sendText(poison);
        await raw.until(() => raw.closeCode !== null, `the close after '${poison}'`);
        expect(raw.closeCode, poison).to.equal(1011);
      }
      expect(hub.proc.child.exitCode, hub.proc.output()).to.equal(null);
      expect((await fetch(`${hub.proc.url}/api/health`)).status).to.equal(200);
      await bystander.reply({ type: 'ping' }, ['pong']);
    } finally {
      for (const s of sockets) s.destroy();
      bystander.ws.terminate();
    }
  });
});
