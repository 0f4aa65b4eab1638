/**
 * Keel's voice limits tried by a hostile client (seed §8; plugin README "Limits"): work running at
 * once is bounded per account (429) and per process (503), both with Retry-After and at once (no
 * queue); a call past the deadline is 504 and its slot stays taken until the engine's work ends;
 * a burst of concurrent requests on the real local engine gets answers, never a 5xx other than 503.
 * The remote engine is the fake audio server, held open so requests really overlap.
 */
import net from 'node:net';
import { expect } from 'chai';
import { createAccount } from './helpers/accounts.js';
import { until } from './helpers/until.js';
import { audioForm, openaiError, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';
import { startVoiceRemote, toneWav, type VoiceRemote } from './helpers/voice-remote.js';

describe('voice http: concurrency limits and the deadline', function () {
  this.timeout(180_000);
  let remote: VoiceRemote;
  before(async () => (remote = await startVoiceRemote()));
  after(() => remote?.close());

  describe('per account and per process', () => {
    let gw: VoiceGateway;
    let eve: string;
    before(async () => {
      gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, limits: { maxConcurrentPerAccount: 2, maxConcurrentSyntheses: 3, retryAfterSeconds: 7 } } });
      eve = await createAccount(gw.k, 'eve');
    });
    after(() => gw?.stop());

    it('answers 429 to an account past its limit and 503 to anyone past the process limit, with Retry-After, and serves again once work ends', async () => {
      remote.hold();
      const running = [gw.speech({ input: 'one' }), gw.speech({ input: 'two' }), gw.speech({ input: 'three' }, eve)];
      try {
        await until(() => remote.waiting, { what: 'three speech calls held at the remote', ok: (n) => n === 3 });
        const mine = await gw.speech({ input: 'four' });
        const tooMany = openaiError(mine, 429);
        expect(tooMany.type).to.equal('rate_limit_error');
        expect(tooMany.message).to.contain('limits.maxConcurrentPerAccount');
        expect(mine.headers['retry-after']).to.equal('7');
        const busy = await gw.speech({ input: 'five' }, gw.admin);
        expect(openaiError(busy, 503).message).to.contain('limits.maxConcurrentSyntheses');
        expect(busy.headers['retry-after']).to.equal('7');
      } finally {
        remote.release();
      }
      for (const res of await Promise.all(running)) expect(res.statusCode, res.body.slice(0, 200)).to.equal(200);
      const after = await gw.speech({ input: 'six' });
      expect(after.statusCode, after.body.slice(0, 200)).to.equal(200);
    });
  });

  describe('an upload refused before it is read', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway({ voice: { voice_stt_engine: 'compatible', voice_remote_base_url: remote.baseUrl, limits: { maxConcurrentPerAccount: 1 } } })));
    after(() => gw?.stop());

    it('answers 429 at once and closes the connection while the client is still sending', async () => {
      remote.hold();
      const form = audioForm([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: toneWav(0.2) }]);
      const first = gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: form.payload, headers: form.headers });
      try {
        await until(() => remote.waiting, { what: 'the first transcription held at the remote', ok: (n) => n === 1 });
        const socket = net.connect(gw.port, '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        let received = '';
        let closed = false;
        socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
        socket.on('close', () => (closed = true));
        socket.on('error', () => (closed = true));
        const chunk = (data: Buffer) => {
          if (!socket.destroyed) socket.write(Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]));
        };
        socket.write(`POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n`);
        chunk(Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="endless.wav"\r\n\r\n'));
        const pump = setInterval(() => chunk(Buffer.alloc(16 * 1024, 0x61)), 5);
        try {
          await until(() => received.startsWith('HTTP/1.1 '), { what: 'the refusal', deadline: 60_000 });
          await until(() => closed, { what: 'the server to close the connection', deadline: 30_000 });
        } finally {
          clearInterval(pump);
          socket.destroy();
        }
        expect(received.slice(9, 12), received.slice(0, 300)).to.equal('429');
        expect(received.toLowerCase()).to.contain('retry-after: 1').and.contain('connection: close');
      } finally {
        remote.release();
      }
      expect((await first).statusCode).to.equal(200);
    });
  });

  describe('the deadline', () => {
    let gw: VoiceGateway;
    before(async () => {
      gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, limits: { requestTimeoutMs: 300, maxConcurrentPerAccount: 1 } } });
    });
    after(() => gw?.stop());

    it('answers 504 past limits.requestTimeoutMs, aborts the remote call, and frees the slot', async () => {
      remote.hold();
      try {
        const late = await gw.speech({ input: 'never in time' });
        const error = openaiError(late, 504);
        expect(error.message).to.contain('limits.requestTimeoutMs');
        // The aborted call ends; the account's single slot is free again (no 429).
        await until(async () => (await gw.speech({ input: 'again' })).statusCode, { what: 'the slot to be free again (504, not 429)', ok: (s) => s === 504 });
      } finally {
        remote.release();
      }
      const ok = await gw.speech({ input: 'in time now' });
      expect(ok.statusCode, ok.body.slice(0, 200)).to.equal(200);
    });

    it('counts a slow upload against the deadline: 504 and the connection closed, the slot free again', async () => {
      const socket = net.connect(gw.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      let received = '';
      let closed = false;
      socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
      socket.on('close', () => (closed = true));
      socket.on('error', () => (closed = true));
      // The head of an upload, then nothing more: the body never ends.
      socket.write(`POST /v1/audio/transcriptions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 1000000\r\n\r\n--B\r\nContent-Disposition: form-data; name="file"; filename="slow.wav"\r\n\r\nRIFF`);
      try {
        await until(() => closed, { what: 'the server to answer and close the slow upload', deadline: 60_000 });
      } finally {
        socket.destroy();
      }
      expect(received.slice(9, 12), received.slice(0, 300)).to.equal('504');
      expect(received).to.contain('limits.requestTimeoutMs');
      const ok = await gw.speech({ input: 'free again' });
      expect(ok.statusCode, ok.body.slice(0, 200)).to.equal(200);
    });
  });

  describe('a burst on the local engine', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway({ voice: { limits: { maxConcurrentPerAccount: 4, maxConcurrentSyntheses: 2 } } })));
    after(() => gw?.stop());

    it('answers 40 concurrent syntheses of several accounts with 200, 429 or 503 only, and still serves after', async () => {
      const tokens = [gw.bob, gw.admin, await createAccount(gw.k, 'eve'), await createAccount(gw.k, 'mal')];
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => gw.speech({ input: `Burst number ${i}.` }, tokens[i % tokens.length])));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => ![200, 429, 503].includes(s)), JSON.stringify(statuses)).to.deep.equal([]);
      expect(statuses).to.include(200);
      for (const refused of answers.filter((a) => a.statusCode !== 200)) expect(refused.headers['retry-after']).to.equal('1');
      const after = await gw.speech({ input: 'Still here.' });
      expect(after.statusCode, after.body.slice(0, 200)).to.equal(200);
    });
  });
});
