/**
 * A hostile client's input to the audio routes (seed §7, reference B.15 sentences, Keel's limits):
 * every refusal is an OpenAI-shaped 4xx with a sentence, before any engine runs; an oversized
 * upload is cut off at the limit (the connection closed while the client is still sending), never
 * read to its end; a body that is not what the route takes is 400/415.
 */
import net from 'node:net';
import { expect } from 'chai';
import { until } from './helpers/until.js';
import { audioForm, openaiError, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';

const LIMIT_BYTES = 64 * 1024;
const MAX_CHARS = 200;

describe('voice http: bad and hostile input', function () {
  this.timeout(180_000);
  let gw: VoiceGateway;
  before(async () => (gw = await voiceGateway({ voice: { limits: { maxUploadBytes: LIMIT_BYTES, maxInputChars: MAX_CHARS, maxFieldBytes: 1024 } } })));
  after(() => gw?.stop());

  const transcribe = (parts: Parameters<typeof audioForm>[0], token = gw.bob) => {
    const form = audioForm(parts);
    return gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token, payload: form.payload, headers: form.headers });
  };

  describe('POST /v1/audio/speech', () => {
    it('answers the reference sentences with 400, naming the parameter', async () => {
      const cases: Array<[unknown, string, string]> = [
        [{}, 'Missing input text.', 'input'],
        [{ input: '   ' }, 'Missing input text.', 'input'],
        [{ input: 'hi', response_format: 'aiff' }, 'Unsupported audio format: aiff', 'response_format'],
        [{ input: 'hi', format: 'midi' }, 'Unsupported audio format: midi', 'response_format'],
        [{ input: 'hi', speed: 3 }, 'Speed must be between 0.5 and 2.0 (got 3).', 'speed'],
        [{ input: 'hi', speed: 0.25 }, 'Speed must be between 0.5 and 2.0 (got 0.25).', 'speed'],
        [{ input: 'hi', voice: { label: 'no id here' } }, 'The voice record carries no id: give `voice_id`, `voice`, `profile_id`, `id` or `name`.', 'voice'],
      ];
      for (const [body, sentence, param] of cases) {
        const error = openaiError(await gw.speech(body), 400);
        expect(error.message, JSON.stringify(body)).to.equal(sentence);
        expect(error.param).to.equal(param);
        expect(error.type).to.equal('invalid_request_error');
      }
    });

    it('accepts the alias `text` and refuses input longer than limits.maxInputChars', async () => {
      const error = openaiError(await gw.speech({ text: 'x'.repeat(MAX_CHARS + 1) }), 400);
      expect(error.message).to.contain(`limit is ${MAX_CHARS}`).and.contain('limits.maxInputChars');
      expect(error.code).to.equal('input_too_long');
    });

    it('refuses a body far larger than any allowed input with 413, without reading it all', async () => {
      const res = await gw.speech({ input: 'x'.repeat(5 * 1024 * 1024) });
      expect(res.statusCode, res.body.slice(0, 300)).to.equal(413);
    });

    it('refuses a body that is not JSON with 400, and wrong types naming the field', async () => {
      const text = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: 'input=hello', headers: { 'content-type': 'text/plain' } });
      expect(openaiError(text, 400).message).to.contain('JSON');
      const broken = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: '{"input": "hi"', headers: { 'content-type': 'application/json' } });
      expect(openaiError(broken, 400).message).to.contain('not valid JSON');
      const typed = openaiError(await gw.speech({ input: 12 }), 400);
      expect(typed.param).to.equal('input');
    });
  });

  describe('POST /v1/audio/transcriptions and /v1/voice/clone', () => {
    it('refuses a body that is not multipart/form-data with 415', async () => {
      for (const url of ['/v1/audio/transcriptions', '/v1/voice/clone']) {
        const res = await gw.k.inject({ method: 'POST', url, token: gw.bob, payload: { file: 'x' } });
        const error = openaiError(res, 415);
        expect(error.message).to.contain('multipart/form-data');
        expect(error.code).to.equal('unsupported_media_type');
      }
    });

    it('answers "Missing audio file." for no file and for an empty one', async () => {
      for (const parts of [[{ name: 'model', value: 'pocketsphinx' }], [{ name: 'file', filename: 'a.wav', bytes: Buffer.alloc(0) }]]) {
        const error = openaiError(await transcribe(parts), 400);
        expect(error.message).to.equal('Missing audio file.');
        expect(error.param).to.equal('file');
      }
    });

    it('refuses a second file, a file in another field, a repeated field, a field too large, a bad response_format or temperature', async () => {
      const wav = Buffer.alloc(100);
      const cases: Array<[Parameters<typeof audioForm>[0], RegExp]> = [
        [[{ name: 'file', filename: 'a.wav', bytes: wav }, { name: 'file', filename: 'b.wav', bytes: wav }], /one file/],
        [[{ name: 'audio', filename: 'a.wav', bytes: wav }], /Unexpected file field 'audio'/],
        [[{ name: 'language', value: 'en' }, { name: 'language', value: 'fr' }, { name: 'file', filename: 'a.wav', bytes: wav }], /sent twice/],
        [[{ name: 'prompt', value: 'p'.repeat(2000) }, { name: 'file', filename: 'a.wav', bytes: wav }], /larger than 1 KiB|larger than 1\.0 KiB|larger than 1024/],
        [[{ name: 'file', filename: 'a.wav', bytes: wav }, { name: 'response_format', value: 'srt' }], /Unsupported response_format: srt/],
        [[{ name: 'file', filename: 'a.wav', bytes: wav }, { name: 'temperature', value: '7' }], /temperature must be a number between 0 and 1/],
      ];
      for (const [parts, sentence] of cases) expect(openaiError(await transcribe(parts), 400).message).to.match(sentence);
    });

    it('answers 413 for a file larger than limits.maxUploadBytes', async () => {
      const error = openaiError(await transcribe([{ name: 'file', filename: 'big.wav', bytes: Buffer.alloc(LIMIT_BYTES + 1) }]), 413);
      expect(error.message).to.contain('limits.maxUploadBytes');
      expect(error.code).to.equal('file_too_large');
    });

    it('cuts an endless upload off at the limit: 413 and the connection closed while the client still sends', async () => {
      for (const url of ['/v1/audio/transcriptions', '/v1/voice/clone']) {
        const socket = net.connect(gw.port, '127.0.0.1');
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        let received = '';
        let closed = false;
        socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
        socket.on('close', () => (closed = true));
        socket.on('error', () => (closed = true));
        let sent = 0;
        const chunk = (data: Buffer) => {
          if (socket.destroyed) return;
          sent += data.length;
          socket.write(Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]));
        };
        socket.write(`POST ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.bob}\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n`);
        chunk(Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="endless.wav"\r\nContent-Type: audio/wav\r\n\r\n'));
        const garbage = Buffer.alloc(16 * 1024, 0x61);
        const pump = setInterval(() => chunk(garbage), 5);
        try {
          await until(() => received.startsWith('HTTP/1.1 '), { what: `the answer of ${url}`, deadline: 60_000 });
          await until(() => closed, { what: 'the server to close the connection', deadline: 30_000 });
        } finally {
          clearInterval(pump);
          socket.destroy();
        }
        expect(received.slice(9, 12), received.slice(0, 400)).to.equal('413');
        // The client was still sending when it was cut off: far more was offered than the server took.
        expect(sent, 'bytes the client sent').to.be.greaterThan(LIMIT_BYTES);
        const body = received.slice(received.indexOf('\r\n\r\n') + 4);
        expect(body).to.contain('"error"');
      }
      // Still serving.
      openaiError(await gw.speech({}), 400);
    });
  });
});
