/**
 * The voice plugin's owner settings (reference B.13): the config wins over the environment, which
 * wins over Keel's defaults (local espeak and pocketsphinx, no downloads); booleans read
 * 1/true/yes/y/on and 0/false/no/n/off, anything else is the default; the explicit delivery mode
 * wins over the streaming flags; a codebook typo fails the boot before any manager exists.
 */
import { expect } from 'chai';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { readBoolean, resolveOwnerSettings, voicePlugin } from '@keel/plugin-voice';

describe('voice plugin: owner settings (B.13)', () => {
  it('defaults to the offline engines, English, no downloads', () => {
    const s = resolveOwnerSettings({}, {});
    expect(s).to.include({ language: 'en', ttsEngine: 'espeak', sttEngine: 'pocketsphinx', allowDownloads: false, whisperModel: 'base', remoteTimeoutS: 60, clonedTtsStreaming: true, deliveryMode: null });
    expect(s.ttsModel).to.equal(null);
    expect(s.remoteBaseUrl).to.equal(null);
  });

  it('reads the environment when the config says nothing, and the config over the environment', () => {
    const env = { VOICE_TTS_ENGINE: 'compatible', VOICE_STT_ENGINE: 'Hosted', VOICE_LANGUAGE: 'FR', VOICE_ALLOW_DOWNLOADS: 'yes', HOSTED_BASE_URL: 'http://remote/v1', VOICE_REMOTE_TIMEOUT_S: '12', VOICE_REMOTE_TTS_MODEL: 'remote-tts', VOICE_HOSTED_STT_MODEL: 'whisper-1', HOSTED_API_KEY: 'k1', VOICE_DEBUG: 'on' };
    const fromEnv = resolveOwnerSettings({}, env);
    expect(fromEnv).to.include({ ttsEngine: 'compatible', sttEngine: 'hosted', language: 'fr', allowDownloads: true, remoteBaseUrl: 'http://remote/v1', remoteTimeoutS: 12, ttsModel: 'remote-tts', sttModel: 'whisper-1', hostedApiKey: 'k1', debugMode: true });
    const fromConfig = resolveOwnerSettings({ voice_tts_engine: 'espeak', voice_language: 'de', voice_allow_downloads: 'off', voice_remote_timeout_s: '30', voice_tts_model: 'espeak-ng' }, env);
    expect(fromConfig).to.include({ ttsEngine: 'espeak', language: 'de', allowDownloads: false, remoteTimeoutS: 30, ttsModel: 'espeak-ng' });
  });

  it('gives a hosted model variable only to the hosted engine and a remote one only to a compatible engine', () => {
    const env = { VOICE_HOSTED_TTS_MODEL: 'gpt-4o-mini-tts', VOICE_REMOTE_STT_MODEL: 'remote-whisper' };
    expect(resolveOwnerSettings({}, env)).to.include({ ttsModel: null, sttModel: null });
    expect(resolveOwnerSettings({ voice_tts_engine: 'hosted', voice_stt_engine: 'compatible' }, env)).to.include({ ttsModel: 'gpt-4o-mini-tts', sttModel: 'remote-whisper' });
  });

  it('reads booleans as the reference does: words, numbers, anything else is the default', () => {
    for (const yes of [true, 1, '1', 'true', 'YES', 'y', 'On']) expect(readBoolean(yes, false), String(yes)).to.equal(true);
    for (const no of [false, 0, '0', 'false', 'No', 'n', 'OFF']) expect(readBoolean(no, true), String(no)).to.equal(false);
    for (const other of ['maybe', '', 2, 'truthy']) {
      expect(readBoolean(other, true), String(other)).to.equal(true);
      expect(readBoolean(other, false), String(other)).to.equal(false);
    }
    // "false" is false, not a truthy string.
    expect(resolveOwnerSettings({ voice_cloned_tts_streaming: 'false' }, {}).clonedTtsStreaming).to.equal(false);
  });

  it('lets the explicit delivery mode win over both streaming flags; ignores timeouts that are not positive numbers', () => {
    expect(resolveOwnerSettings({ voice_tts_delivery_mode: 'buffered', voice_cloned_tts_streaming: 'on', voice_tts_streaming: true }, {})).to.include({ deliveryMode: 'buffered', clonedTtsStreaming: false });
    expect(resolveOwnerSettings({ voice_tts_streaming: 'yes' }, {})).to.include({ deliveryMode: 'streamed' });
    expect(resolveOwnerSettings({}, { VOICE_TTS_DELIVERY_MODE: 'chunks' })).to.include({ deliveryMode: 'streamed', clonedTtsStreaming: true });
    for (const bad of ['0', '-5', 'soon', 'Infinity']) expect(resolveOwnerSettings({ voice_remote_timeout_s: bad }, {}).remoteTimeoutS, bad).to.equal(60);
  });

  it('refuses to boot with a codebook predictor or sampler typo, naming it', async () => {
    for (const config of [{ voice_codebook_predictor: 'referenc' }, { voice_codebook_sampler: 'greedy' }]) {
      const err = await createTestKernel({ plugins: [inferencePlugin, { plugin: voicePlugin, config }], config: { server: { logLevel: 'silent' } } }).then(
        async (k) => (await k.stop(), null),
        (e: unknown) => e,
      );
      expect(err, JSON.stringify(config)).to.be.instanceOf(Error);
      expect(String((err as Error).message)).to.match(/voice_codebook_(predictor|sampler)/);
    }
  });

  it('refuses to boot with a limit out of range', async () => {
    const err = await createTestKernel({ plugins: [inferencePlugin, { plugin: voicePlugin, config: { limits: { maxUploadBytes: 10 } } }], config: { server: { logLevel: 'silent' } } }).then(
      async (k) => (await k.stop(), null),
      (e: unknown) => e,
    );
    expect(String((err as Error | null)?.message)).to.contain('maxUploadBytes');
  });
});
