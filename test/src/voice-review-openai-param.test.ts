/**
 * Review of issue 17: OpenAI-shaped refusals of `/v1/audio/*` name the request field at fault in
 * `param` (as OpenAI does, and as the `openai` client exposes it as `error.param`), also when the
 * refusal comes from the engine: an unknown model, voice or language, a grammar word the
 * recogniser does not know.
 */
import { expect } from 'chai';
import { form } from './helpers/artifacts.js';
import { skipWithoutPocketsphinx, voiceKernel } from './helpers/voice-flows-kernel.js';
import { toneWav } from './helpers/voice-remote.js';

interface OpenAiError { error: { message: string; type: string; code: string | null; param: string | null } }

describe('voice review: /v1/audio refusals name their param', function () {
  this.timeout(300_000);
  const gw = voiceKernel();
  before(() => gw.boot());
  after(() => gw.stop());

  const speech = async (body: Record<string, unknown>) => {
    const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/speech', token: gw.bob, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.statusCode, res.body).to.be.within(400, 404);
    return res.json<OpenAiError>().error;
  };

  it('speech: model, voice and language', async () => {
    expect(await speech({ input: 'Hi.', model: 'tts-1' })).to.include({ code: 'unknown_model', param: 'model', type: 'invalid_request_error' });
    expect(await speech({ input: 'Hi.', model: 'espeak', voice: 'alloy' })).to.include({ param: 'voice' });
    expect(await speech({ input: 'Hi.', language: 'xx' })).to.include({ code: 'unsupported_language', param: 'language' });
  });

  it('transcription: model and prompt', async function () {
    skipWithoutPocketsphinx(this);
    const send = async (fields: Array<{ name: string; value: string }>) => {
      const body = form([{ name: 'file', filename: 'a.wav', contentType: 'audio/wav', bytes: toneWav(1) }, ...fields]);
      const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(400);
      return res.json<OpenAiError>().error;
    };
    expect(await send([{ name: 'model', value: 'whisper-1' }])).to.include({ code: 'unknown_model', param: 'model' });
    expect(await send([{ name: 'prompt', value: 'grammar: zzqxv' }])).to.include({ code: 'unknown_word', param: 'prompt' });
  });

  it('transcription: a WAV without audio names the file', async function () {
    skipWithoutPocketsphinx(this);
    const empty = Buffer.alloc(44);
    empty.write('RIFF', 0, 'latin1');
    empty.writeUInt32LE(36, 4);
    empty.write('WAVEfmt ', 8, 'latin1');
    empty.writeUInt32LE(16, 16);
    empty.writeUInt16LE(1, 20);
    empty.writeUInt16LE(1, 22);
    empty.writeUInt32LE(16_000, 24);
    empty.writeUInt32LE(32_000, 28);
    empty.writeUInt16LE(2, 32);
    empty.writeUInt16LE(16, 34);
    empty.write('data', 36, 'latin1');
    empty.writeUInt32LE(0, 40);
    const body = form([{ name: 'file', filename: 'empty.wav', contentType: 'audio/wav', bytes: empty }]);
    const res = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: body.payload, headers: body.headers });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json<OpenAiError>().error).to.include({ code: 'empty_audio', param: 'file' });
  });
});
