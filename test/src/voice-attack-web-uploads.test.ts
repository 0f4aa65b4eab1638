/**
 * A hostile account against the web example's upload routes (`/voice/api/stt/transcriptions`,
 * `/voice/api/voices/clone`): like `/v1/audio/transcriptions`, an upload must take its slot before
 * its body is read (else one account opens many connections and has each hold `maxUploadBytes` of
 * audio in memory, past every concurrency limit), and a body that never ends must meet the
 * deadline (else a connection is held for ever).
 */
import net from 'node:net';
import { expect } from 'chai';
import { until } from './helpers/until.js';
import { voiceKernel } from './helpers/voice-flows-kernel.js';
import { audioForm } from './helpers/voice-kernel.js';
import { toneWav } from './helpers/voice-remote.js';

/** A raw connection that sends the head of a web upload and part of its file, then nothing more. */
async function heldUpload(port: number, token: string, path: string): Promise<{ received: () => string; closed: () => boolean; destroy: () => void }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let received = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 20000000\r\n\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="held.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF`);
  return { received: () => received, closed: () => closed, destroy: () => socket.destroy() };
}

describe('voice attack: web example uploads are admitted before they are read', function () {
  this.timeout(180_000);

  describe('one account, several uploads at once', () => {
    const gw = voiceKernel({ voice: { limits: { maxConcurrentPerAccount: 1 } } });
    let port = 0;
    before(async () => {
      await gw.boot();
      port = (await gw.k.listen()).port;
    });
    after(() => gw.stop());

    it('a second upload of an account whose first is still being sent answers 429 (transcription and clone)', async () => {
      const wav = toneWav(0.2);
      const second = async (url: string, token = gw.bob) => {
        const body = audioForm([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: wav }]);
        return (await gw.k.inject({ method: 'POST', url, token, payload: body.payload, headers: body.headers })).statusCode;
      };
      // The held upload must reach the server before the probe (else the probe takes the slot and the
      // held one is the one refused): try again with a fresh held upload until it has.
      let held = await heldUpload(port, gw.bob, '/voice/api/stt/transcriptions');
      try {
        await until(async () => {
          const status = await second('/voice/api/stt/transcriptions');
          if (status === 429 && !held.received()) return status;
          held.destroy();
          held = await heldUpload(port, gw.bob, '/voice/api/stt/transcriptions');
          return `${status}; held: ${held.received().slice(0, 12)}`;
        }, { what: 'a second transcription upload of bob to be refused 429 while the first is held', ok: (s) => s === 429, deadline: 30_000 });
        expect(await second('/voice/api/voices/clone')).to.equal(429);
        // Another account is not affected by bob's held upload.
        expect(await second('/voice/api/stt/transcriptions', gw.eve)).to.not.equal(429);
        expect(held.received(), 'the held upload is still being read').to.equal('');
      } finally {
        held.destroy();
      }
    });
  });

  describe('a body that never ends', () => {
    const gw = voiceKernel({ voice: { limits: { requestTimeoutMs: 500 } } });
    let port = 0;
    before(async () => {
      await gw.boot();
      port = (await gw.k.listen()).port;
    });
    after(() => gw.stop());

    for (const path of ['/voice/api/stt/transcriptions', '/voice/api/voices/clone']) {
      it(`${path}: 504 past limits.requestTimeoutMs and the connection closed`, async () => {
        const held = await heldUpload(port, gw.bob, path);
        try {
          await until(held.closed, { what: 'the server to answer and close the slow upload', deadline: 30_000 });
        } finally {
          held.destroy();
        }
        expect(held.received().slice(9, 12), held.received().slice(0, 300)).to.equal('504');
        expect(held.received()).to.contain('limits.requestTimeoutMs');
      });
    }
  });
});
