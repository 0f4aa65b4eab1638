/**
 * Reference B.14: without the voice plugin every audio route of the gateway answers 501 with the
 * sentence that says how to load it (the inference plugin owns `/v1`); with it, those paths are the
 * voice plugin's. Either way an unauthenticated client gets 401 and nothing else.
 */
import { expect } from 'chai';
import { VOICE_MISSING } from '@keel/plugin-inference';
import { audioForm, openaiError, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';

const AUDIO_ROUTES = [
  ['POST', '/v1/audio/speech'],
  ['POST', '/v1/audio/transcriptions'],
  ['GET', '/v1/audio/voices'],
  ['GET', '/v1/audio/speech/models'],
  ['GET', '/v1/audio/transcriptions/models'],
  ['POST', '/v1/voice/clone'],
] as const;

describe('voice http: the audio routes without the voice plugin (501) and without a token (401)', function () {
  this.timeout(120_000);

  describe('a gateway without the voice plugin', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway({ voice: false })));
    after(() => gw?.stop());

    it('answers every audio route 501 with install and config guidance, OpenAI-shaped', async () => {
      for (const [method, url] of AUDIO_ROUTES) {
        const res = await gw.k.inject({ method, url, token: gw.bob, ...(method === 'POST' ? { payload: { input: 'hi' } } : {}) });
        const error = openaiError(res, 501);
        expect(error.message, url).to.equal(VOICE_MISSING);
        expect(error.message).to.contain('@keel/plugin-voice').and.contain('config');
        expect(error.code).to.equal('voice_unavailable');
        expect(error.type).to.equal('server_error');
      }
    });

    it('answers 401 and nothing else to a client without a token, or with a wrong one', async () => {
      for (const [method, url] of AUDIO_ROUTES) {
        for (const token of [undefined, 'not-a-token']) {
          const res = await gw.k.inject({ method, url, ...(token ? { token } : {}) });
          const error = openaiError(res, 401);
          expect(error.message).to.not.contain('voice');
        }
      }
    });

    it('is what the official openai client sees: an APIError with status 501', async () => {
      const err = await gw.openai().audio.speech.create({ model: 'tts-1', input: 'hello', voice: 'alloy' }).then(() => null, (e: unknown) => e);
      expect(err).to.have.property('status', 501);
      expect(String((err as Error).message)).to.contain('voice plugin is not loaded');
    });
  });

  describe('a gateway with the voice plugin', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway()));
    after(() => gw?.stop());

    it('serves the audio routes itself: none answers 501 any more', async () => {
      const speech = await gw.speech({ input: '' });
      expect(openaiError(speech, 400).message).to.equal('Missing input text.');
      const upload = audioForm([{ name: 'model', value: 'x' }]);
      const transcription = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: upload.payload, headers: upload.headers });
      expect(openaiError(transcription, 400).message).to.equal('Missing audio file.');
    });

    it('answers an unknown audio path 404, not 501 (the plugin is loaded)', async () => {
      for (const [method, url] of [['POST', '/v1/audio/nothing'], ['GET', '/v1/audio/speech/nothing'], ['POST', '/v1/voice/nothing']] as const) {
        const error = openaiError(await gw.k.inject({ method, url, token: gw.bob, ...(method === 'POST' ? { payload: {} } : {}) }), 404);
        expect(error.message).to.contain('No audio route');
      }
    });

    it('answers 401 and nothing else to a client without a token, before reading the body', async () => {
      for (const [method, url] of AUDIO_ROUTES) {
        const error = openaiError(await gw.k.inject({ method, url, ...(method === 'POST' ? { payload: { input: 'hi' } } : {}) }), 401);
        expect(error.type).to.equal('authentication_error');
      }
      // An upload without a token is refused before a byte of its file is read.
      const upload = audioForm([{ name: 'file', filename: 'a.wav', bytes: Buffer.alloc(1024) }]);
      openaiError(await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', payload: upload.payload, headers: upload.headers }), 401);
    });

    it('honours the admin switch of the OpenAI-compatible API (503 while it is off)', async () => {
      const off = await gw.k.inject({ method: 'POST', url: '/api/gateway/admin/core-endpoint/disable', token: gw.admin });
      expect(off.statusCode, off.body).to.equal(200);
      try {
        const error = openaiError(await gw.speech({ input: 'hello' }), 503);
        expect(error.code).to.equal('api_disabled');
      } finally {
        const on = await gw.k.inject({ method: 'POST', url: '/api/gateway/admin/core-endpoint/enable', token: gw.admin });
        expect(on.statusCode, on.body).to.equal(200);
      }
    });
  });
});
