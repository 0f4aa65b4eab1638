/**
 * A remote `compatible` engine (seed §1B, §4B; reference B.12) behind the gateway's /v1 audio routes:
 * the fake OpenAI-shaped audio server stands for the remote product. Speech and transcription go to
 * it with the configured key; a request's `provider:model` picks it over the local default; its
 * voices are listed; a clone is made through its `/voice/clone`, belongs to the account that made it,
 * and is spoken by the remote with its remote id.
 */
import { expect } from 'chai';
import { toFile } from 'openai';
import { createAccount } from './helpers/accounts.js';
import { audioForm, openaiError, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';
import { startVoiceRemote, toneWav, type VoiceRemote } from './helpers/voice-remote.js';

describe('voice http: a remote compatible engine', function () {
  this.timeout(180_000);
  let remote: VoiceRemote;
  before(async () => (remote = await startVoiceRemote({ apiKey: 'remote-secret' })));
  after(() => remote?.close());

  describe('configured as the engines', () => {
    let gw: VoiceGateway;
    before(async () => {
      gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_stt_engine: 'compatible', voice_cloning_engine: 'compatible', voice_remote_base_url: remote.baseUrl, voice_remote_api_key: 'remote-secret', voice_tts_model: 'remote-tts-1' } });
    });
    after(() => gw?.stop());

    it('speaks through the remote /audio/speech with the key, the model and the voice, and answers its audio', async () => {
      const before = remote.seen.length;
      const speech = await gw.openai().audio.speech.create({ model: 'remote-tts-1', voice: 'remote-nova', input: 'Hello from far away.', response_format: 'wav' });
      const bytes = Buffer.from(await speech.arrayBuffer());
      expect(speech.headers.get('content-type')).to.equal('audio/wav');
      expect(bytes.subarray(0, 4).toString('latin1')).to.equal('RIFF');
      const call = remote.seen.slice(before).find((r) => r.path === '/audio/speech');
      expect(call, 'the remote speech call').to.not.equal(undefined);
      expect(call!.headers.authorization).to.equal('Bearer remote-secret');
      expect(call!.body).to.include({ input: 'Hello from far away.', model: 'remote-tts-1', voice: 'remote-nova', response_format: 'wav' });
    });

    it('transcribes through the remote /audio/transcriptions', async () => {
      const wav = toneWav(0.5);
      const heard = await gw.openai().audio.transcriptions.create({ file: await toFile(wav, 'tone.wav', { type: 'audio/wav' }), model: 'compatible', language: 'fr' });
      expect(heard.text).to.equal(`remote heard ${wav.length} bytes in fr`);
    });

    it('answers a remote failure 502 with the remote\'s own message (never the caller\'s 401)', async () => {
      const gw2 = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, voice_remote_api_key: 'wrong' } });
      try {
        const error = openaiError(await gw2.speech({ input: 'Hello.' }), 502);
        expect(error.message).to.equal('Remote TTS failed (HTTP 401): Incorrect API key provided.');
        expect(error.type).to.equal('server_error');
      } finally {
        await gw2.stop();
      }
    });

    it('lists the remote voices and models', async () => {
      const voices = await gw.k.inject({ url: '/v1/audio/voices', token: gw.bob });
      expect(voices.statusCode, voices.body).to.equal(200);
      const ids = voices.json<{ data: Array<{ voice: string }> }>().data.map((v) => v.voice);
      expect(ids).to.include.members(['remote-nova', 'remote-onyx']);
      const models = await gw.k.inject({ url: '/v1/audio/speech/models', token: gw.bob });
      expect(models.json<{ data: Array<{ id: string }> }>().data.map((m) => m.id)).to.include('compatible:remote-tts-1');
    });

    it('clones through the remote /voice/clone; the clone is the account\'s own and is spoken by its remote id', async () => {
      const form = audioForm([{ name: 'file', filename: 'me.wav', contentType: 'audio/wav', bytes: toneWav(1) }, { name: 'name', value: 'Bob voice' }, { name: 'reference_text', value: 'hello there' }]);
      const made = await gw.k.inject({ method: 'POST', url: '/v1/voice/clone', token: gw.bob, payload: form.payload, headers: form.headers });
      expect(made.statusCode, made.body).to.equal(200);
      const clone = made.json<{ ok: boolean; id: string; voice_id: string; name: string; engine: string; validation: unknown }>();
      expect(clone).to.include({ ok: true, name: 'Bob voice', engine: 'compatible', validation: null });
      expect(clone.id).to.equal(clone.voice_id);
      const cloneCall = remote.seen.filter((r) => r.path === '/voice/clone').at(-1)!;
      expect(cloneCall.body).to.include({ name: 'Bob voice', reference_text: 'hello there' });

      const before = remote.seen.length;
      const spoken = await gw.speech({ input: 'In my own voice.', voice: clone.voice_id });
      expect(spoken.statusCode, spoken.body.slice(0, 300)).to.equal(200);
      const speechCall = remote.seen.slice(before).find((r) => r.path === '/audio/speech')!;
      expect(String(speechCall.body.voice)).to.match(/^remote-clone-/);

      const mine = (await gw.k.inject({ url: '/v1/audio/voices', token: gw.bob })).json<{ data: Array<{ voice: string; kind: string }> }>().data;
      expect(mine.filter((v) => v.kind === 'clone').map((v) => v.voice)).to.include(clone.voice_id);

      // Another account neither lists it nor speaks with it.
      const eve = await createAccount(gw.k, 'eve');
      const theirs = (await gw.k.inject({ url: '/v1/audio/voices', token: eve })).json<{ data: Array<{ voice: string }> }>().data;
      expect(theirs.map((v) => v.voice)).to.not.include(clone.voice_id);
      const refused = await gw.speech({ input: 'Not mine.', voice: clone.voice_id }, eve);
      expect(refused.statusCode, refused.body).to.be.oneOf([400, 404]);
    });
  });

  describe('clone validation (validate=true)', () => {
    let gw: VoiceGateway;
    before(async () => (gw = await voiceGateway({ voice: { voice_tts_engine: 'compatible', voice_remote_base_url: remote.baseUrl, voice_remote_api_key: 'remote-secret' } })));
    after(() => gw?.stop());
    const clone = (validate: string) => {
      const form = audioForm([{ name: 'file', filename: 'me.wav', contentType: 'audio/wav', bytes: toneWav(1) }, { name: 'validate', value: validate }]);
      return gw.k.inject({ method: 'POST', url: '/v1/voice/clone', token: gw.bob, payload: form.payload, headers: form.headers });
    };

    it('speaks a sentence with the new voice and reports it', async () => {
      const res = await clone('true');
      expect(res.statusCode, res.body).to.equal(200);
      const body = res.json<{ voice_id: string; validation: { ok: boolean; bytes: number } }>();
      expect(body.validation.ok).to.equal(true);
      expect(body.validation.bytes).to.be.greaterThan(44);
    });

    it('removes the voice and says so when the validation speech fails', async () => {
      remote.faults = { paths: ['/audio/speech'], failStatus: 500 };
      try {
        const error = openaiError(await clone('yes'), 400);
        expect(error.message).to.match(/^Cloned voice was stored but failed validation and was removed\. /);
      } finally {
        remote.faults = {};
      }
      const listed = (await gw.k.inject({ url: '/v1/audio/voices', token: gw.bob })).json<{ cloned_voices: unknown[] }>().cloned_voices;
      expect(listed).to.have.length(1); // only the one validated above
    });
  });

  describe('chosen per request over the local default', () => {
    let gw: VoiceGateway;
    // One cached manager at most: every switch of provider closes the other's manager (never the shared local engine).
    before(async () => (gw = await voiceGateway({ voice: { voice_remote_base_url: remote.baseUrl, voice_remote_api_key: 'remote-secret', limits: { maxCachedManagers: 1 } } })));
    after(() => gw?.stop());

    it('speaks locally by default and remotely for model "compatible:<model>"', async () => {
      const local = await gw.speech({ input: 'Here.' });
      expect(local.statusCode, local.body.slice(0, 300)).to.equal(200);
      expect(local.headers['x-voice-provider']).to.equal('espeak');
      const before = remote.seen.length;
      const far = await gw.speech({ input: 'There.', model: 'compatible:remote-tts-1', voice: 'remote-onyx' });
      expect(far.statusCode, far.body.slice(0, 300)).to.equal(200);
      expect(far.headers['x-voice-provider']).to.equal('compatible');
      const call = remote.seen.slice(before).find((r) => r.path === '/audio/speech')!;
      expect(call.body).to.include({ model: 'remote-tts-1', voice: 'remote-onyx', input: 'There.' });
    });

    it('keeps serving while managers of other providers are built and closed in turn', async () => {
      for (let i = 0; i < 4; i++) {
        for (const model of ['espeak', 'compatible:remote-tts-1']) {
          const res = await gw.speech({ input: `Round ${i}.`, model, ...(model === 'espeak' ? {} : { voice: 'remote-nova' }) });
          expect(res.statusCode, `${model}: ${res.body.slice(0, 200)}`).to.equal(200);
          expect(res.headers['x-voice-provider']).to.equal(model.split(':')[0]);
        }
      }
    });

    it('treats an unknown provider prefix as a model of the default provider (which refuses it with 400)', async () => {
      const before = remote.seen.length;
      const error = openaiError(await gw.speech({ input: 'Hello.', model: 'nowhere:thing' }), 400);
      expect(error.message).to.equal("espeak has no model 'nowhere:thing'; its only model is 'espeak-ng'.");
      expect(remote.seen.length).to.equal(before);
    });
  });
});
