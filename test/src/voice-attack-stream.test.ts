/**
 * A hostile client against streamed speech (`stream_format: "audio"`): it asks for a long stream and
 * never reads it (the stream blocks on backpressure: about 20 MB of audio). The deadline must still
 * end the work and free the account's slot, and the server must close the cut stream's connection.
 * (This attack held: a regression test.)
 */
import net from 'node:net';
import { expect } from 'chai';
import { until } from './helpers/until.js';
import { voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';

describe('voice attack: a streamed speech answer nobody reads', function () {
  this.timeout(180_000);
  let gw: VoiceGateway;
  before(async () => (gw = await voiceGateway({ voice: { limits: { maxConcurrentPerAccount: 1, requestTimeoutMs: 3000 } } })));
  after(() => gw?.stop());

  it('frees the account\'s slot at the deadline and closes the connection', async () => {
    const socket = net.connect(gw.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let head = '';
    let closed = false;
    socket.once('data', (d: Buffer) => {
      head = d.toString('latin1');
      socket.pause(); // never read another byte
    });
    socket.on('close', () => (closed = true));
    socket.on('error', () => (closed = true));
    const text = 'This sentence is spoken again and again to make a long recording. '.repeat(60).slice(0, 4000);
    const body = JSON.stringify({ model: 'espeak', input: text, stream_format: 'audio', response_format: 'pcm', speed: 0.5 });
    socket.write(`POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    try {
      await until(() => head, { what: 'the stream to start', deadline: 60_000 });
      expect(head.slice(9, 12)).to.equal('200');
      // While it is held, bob's one slot is taken; once the deadline passes it must be free again.
      await until(async () => (await gw.speech({ input: 'free again?' })).statusCode, { what: "bob's slot to be freed by the deadline (200, not 429)", ok: (s) => s === 200, deadline: 60_000 });
      // Read what was buffered: a connection the server closed then ends; one it keeps stays open.
      socket.resume();
      await until(() => closed, { what: 'the server to close the unread stream', deadline: 30_000 });
    } finally {
      socket.destroy();
    }
  });
});
