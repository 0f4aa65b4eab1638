/**
 * The voice library's refusals as the gateway answers them (seed §7, reference B.17): a provider that
 * cannot run here is 501 with the sentence that says what to set or install (never a 500); an unknown
 * engine in the config refuses the start with the library's sentence; an unknown cloned voice is 404.
 */
import { expect } from 'chai';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { voicePlugin } from '@keel/plugin-voice';
import { audioForm, openaiError, POCKETSPHINX_INSTALL, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';
import { toneWav } from './helpers/voice-remote.js';

describe('voice http: providers that cannot run, and the library\'s refusals', function () {
  this.timeout(120_000);
  let gw: VoiceGateway;
  before(async () => (gw = await voiceGateway({ voice: { engines: { pocketsphinx: { binary: '/nonexistent/pocketsphinx_continuous' } } } })));
  after(() => gw?.stop());

  it('answers 501 with what to set for a remote provider that is not configured', async () => {
    const hosted = openaiError(await gw.speech({ input: 'Hello.', model: 'hosted' }), 501);
    expect(hosted.message).to.contain('HOSTED_API_KEY');
    const compatible = openaiError(await gw.speech({ input: 'Hello.', model: 'compatible:remote-tts' }), 501);
    expect(compatible.message).to.contain('base URL');
  });

  it('answers 501 with the Debian install command when the recognizer is missing', async () => {
    const form = audioForm([{ name: 'file', filename: 'tone.wav', contentType: 'audio/wav', bytes: toneWav(0.5) }]);
    const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: form.payload, headers: form.headers });
    const error = openaiError(res, 501);
    expect(error.message).to.contain(POCKETSPHINX_INSTALL);
    expect(error.code).to.equal('runtime_missing');
    // The listing says so too, and does not fail.
    const models = await gw.k.inject({ url: '/v1/audio/transcriptions/models', token: gw.bob });
    expect(models.statusCode, models.body).to.equal(200);
    const unavailable = models.json<{ available_providers: { unavailable: { stt: Record<string, { code: string }> } } }>().available_providers.unavailable.stt;
    expect(unavailable.pocketsphinx?.code).to.equal('runtime_missing');
  });

  it('answers 404 for a cloned voice id the account does not have, and 501 for local cloning', async () => {
    const unknown = openaiError(await gw.speech({ input: 'Hello.', voice: '0123456789abcdef0123456789abcdef' }), 404);
    expect(unknown.message).to.equal('Unknown cloned voice: 0123456789abcdef0123456789abcdef');
    const form = audioForm([{ name: 'file', filename: 'me.wav', contentType: 'audio/wav', bytes: toneWav(1) }, { name: 'model', value: 'omnivoice' }]);
    const local = await gw.k.inject({ method: 'POST', url: '/v1/voice/clone', token: gw.bob, payload: form.payload, headers: form.headers });
    expect(openaiError(local, 501).message).to.contain('local');
    // Nothing was stored.
    const voices = (await gw.k.inject({ url: '/v1/audio/voices', token: gw.bob })).json<{ cloned_voices: unknown[] }>();
    expect(voices.cloned_voices).to.deep.equal([]);
  });

  it('refuses to start with an unknown engine id, in the library\'s words', async () => {
    const err = await createTestKernel({ plugins: [inferencePlugin, { plugin: voicePlugin, config: { voice_tts_engine: 'espeek' } }], config: { server: { logLevel: 'silent' } } }).then(
      async (k) => (await k.stop(), null),
      (e: unknown) => e,
    );
    expect(String((err as Error | null)?.message)).to.contain('Unknown tts_engine: espeek. Supported:').and.contain('espeak');
  });
});
