/**
 * The headline test, through the front door with the official `openai` client on the real
 * boot path: Keel's default voice config speaks with the local espeak engine (offline), then the
 * local pocketsphinx engine, in grammar mode (the `prompt`), hears the exact words back. Also the
 * listings computed from the catalog and the content types of each format.
 */
import { expect } from 'chai';
import { toFile } from 'openai';
import { audioForm, openaiError, requirePocketsphinx, voiceGateway, type VoiceGateway } from './helpers/voice-kernel.js';

const GRAMMAR = 'grammar: open the door | close the window | play some music | what time is it | call my mother';

describe('voice http: speak with espeak, hear it back with pocketsphinx (openai client)', function () {
  this.timeout(240_000);
  let gw: VoiceGateway;
  before(async () => (gw = await voiceGateway()));
  after(() => gw?.stop());

  it('speaks WAV offline through /v1/audio/speech with the official client', async () => {
    const speech = await gw.openai().audio.speech.create({ model: 'espeak', voice: 'en-us', input: 'Open the door.', response_format: 'wav' });
    expect(speech.headers.get('content-type')).to.equal('audio/wav');
    const bytes = Buffer.from(await speech.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('latin1')).to.equal('RIFF');
    expect(bytes.subarray(8, 12).toString('latin1')).to.equal('WAVE');
    expect(bytes.length).to.be.greaterThan(8000);
  });

  it('transcribes what espeak said to the exact words, in grammar mode', async function () {
    requirePocketsphinx(this);
    const client = gw.openai();
    for (const phrase of ['open the door', 'play some music', 'what time is it', 'call my mother']) {
      const speech = await client.audio.speech.create({ model: 'espeak', voice: 'en-us', input: `${phrase}.`, response_format: 'wav' });
      const wav = Buffer.from(await speech.arrayBuffer());
      const heard = await client.audio.transcriptions.create({ file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }), model: 'pocketsphinx', language: 'en', prompt: GRAMMAR });
      expect(heard.text, phrase).to.equal(phrase);
    }
  });

  it('answers response_format text and verbose_json as OpenAI does', async function () {
    requirePocketsphinx(this);
    const client = gw.openai();
    const wav = Buffer.from(await (await client.audio.speech.create({ model: 'espeak', voice: 'en-us', input: 'Close the window.' })).arrayBuffer());
    const text = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'pocketsphinx', prompt: GRAMMAR, response_format: 'text' });
    expect(String(text).trim()).to.equal('close the window');
    const verbose = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'pocketsphinx', prompt: GRAMMAR, response_format: 'verbose_json' });
    expect(verbose).to.include({ task: 'transcribe', language: 'en', text: 'close the window' });
    expect(verbose.duration).to.be.greaterThan(0.3).and.below(10);
  });

  it('without a model, uses the configured engines (espeak, pocketsphinx)', async function () {
    requirePocketsphinx(this);
    const res = await gw.speech({ input: 'Play some music.' });
    expect(res.statusCode, res.body.slice(0, 200)).to.equal(200);
    expect(res.headers['x-voice-provider']).to.equal('espeak');
    const form = audioForm([{ name: 'file', filename: 'x.wav', contentType: 'audio/wav', bytes: res.rawPayload }, { name: 'prompt', value: GRAMMAR }]);
    const heard = await gw.k.inject({ method: 'POST', url: '/v1/audio/transcriptions', token: gw.bob, payload: form.payload, headers: form.headers });
    expect(heard.statusCode, heard.body).to.equal(200);
    expect(heard.json()).to.deep.equal({ text: 'play some music' });
  });

  it('streams speech segment by segment with stream_format audio (chunked WAV of unknown length), which pocketsphinx still hears', async function () {
    const res = await fetch(`${gw.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'espeak', input: 'Open the door. Then play some music, and tell me what time it is.', stream_format: 'audio' }),
    });
    expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('audio/wav');
    expect(res.headers.get('transfer-encoding')).to.equal('chunked');
    expect(res.headers.get('content-length')).to.equal(null);
    const wav = Buffer.from(await res.arrayBuffer());
    expect(wav.subarray(0, 4).toString('latin1')).to.equal('RIFF');
    expect(wav.readUInt32LE(4)).to.equal(0xffffffff);
    const data = wav.indexOf('data', 12, 'latin1');
    expect(wav.readUInt32LE(data + 4)).to.equal(0xffffffff);
    // 16-bit mono samples follow, at the header's rate: a few seconds of speech.
    expect(wav.readUInt16LE(22)).to.equal(1);
    expect(wav.readUInt16LE(34)).to.equal(16);
    expect((wav.length - data - 8) / 2 / wav.readUInt32LE(24)).to.be.greaterThan(1.5);

    requirePocketsphinx(this);
    const short = await fetch(`${gw.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'espeak', input: 'Call my mother.', stream_format: 'audio' }),
    });
    const heard = await gw.openai().audio.transcriptions.create({ file: await toFile(Buffer.from(await short.arrayBuffer()), 'stream.wav', { type: 'audio/wav' }), model: 'pocketsphinx', prompt: GRAMMAR });
    expect(heard.text).to.equal('call my mother');
  });

  it('refuses stream_format sse, another value, and a streamed format other than wav or pcm; an error before the first segment is an ordinary answer', async () => {
    expect(openaiError(await gw.speech({ input: 'Hi.', stream_format: 'sse' }), 400).message).to.contain('stream_format sse is not supported');
    expect(openaiError(await gw.speech({ input: 'Hi.', stream_format: 'video' }), 400).message).to.contain('Unsupported stream_format: video');
    expect(openaiError(await gw.speech({ input: 'Hi.', stream_format: 'audio', response_format: 'mp3' }), 400).message).to.contain('wav or pcm');
    expect(openaiError(await gw.speech({ input: 'Hi.', stream_format: 'audio', voice: 'alloy' }), 400).message).to.contain('alloy');
    const pcm = await gw.speech({ input: 'Hi.', stream_format: 'audio', response_format: 'pcm' });
    expect(pcm.statusCode).to.equal(200);
    expect(pcm.headers['content-type']).to.equal('application/octet-stream');
    expect(pcm.rawPayload.length % 2).to.equal(0);
    expect(pcm.rawPayload.length).to.be.greaterThan(1000);
  });

  it('answers pcm as application/octet-stream, and refuses a format the local engine cannot write', async () => {
    const pcm = await gw.speech({ input: 'Hello.', response_format: 'pcm' });
    expect(pcm.statusCode, pcm.body.slice(0, 200)).to.equal(200);
    expect(pcm.headers['content-type']).to.equal('application/octet-stream');
    expect(pcm.rawPayload.subarray(0, 4).toString('latin1')).to.not.equal('RIFF');
    const mp3 = openaiError(await gw.speech({ input: 'Hello.', response_format: 'mp3' }), 400);
    expect(mp3.message).to.contain('mp3');
  });

  it('refuses an unknown voice, an unknown language, and instructions the local engine cannot follow, each 400', async () => {
    expect(openaiError(await gw.speech({ input: 'Hello.', voice: 'alloy' }), 400).message).to.contain('alloy');
    expect(openaiError(await gw.speech({ input: 'Hello.', language: 'xx-nowhere' }), 400).message).to.contain('Unsupported or unavailable language');
    expect(openaiError(await gw.speech({ input: 'Hello.', instructions: 'whisper it' }), 400).message).to.contain('Instructions are not supported');
  });

  it('lists voices and models computed from the catalog, in OpenAI list shapes', async () => {
    const voices = await gw.k.inject({ url: '/v1/audio/voices', token: gw.bob });
    expect(voices.statusCode, voices.body).to.equal(200);
    const v = voices.json<{ object: string; data: Array<Record<string, unknown>>; voices: unknown[]; available_providers: Record<string, unknown> }>();
    expect(v.object).to.equal('list');
    const enUs = v.data.find((x) => x.voice === 'en-us' || x.profile_id === 'en-us');
    expect(enUs, 'the espeak profile en-us').to.include({ object: 'voice.profile', kind: 'profile' });
    expect(v.available_providers).to.be.an('object');

    const tts = await gw.k.inject({ url: '/v1/audio/speech/models', token: gw.bob });
    expect(tts.statusCode, tts.body).to.equal(200);
    const t = tts.json<{ object: string; data: Array<{ id: string; object: string; provider: string; kind: string }>; tts_models_by_provider: Record<string, string[]> }>();
    expect(t.object).to.equal('list');
    const espeak = t.data.find((m) => m.provider === 'espeak');
    expect(espeak, tts.body.slice(0, 500)).to.include({ object: 'model', kind: 'tts' });
    expect(espeak!.id.startsWith('espeak:')).to.equal(true);
    expect(t.tts_models_by_provider).to.have.property('espeak');
    // The listed id is a selector the speech route takes as it is.
    const spoken = await gw.speech({ input: 'Hello.', model: espeak!.id });
    expect(spoken.statusCode, spoken.body.slice(0, 300)).to.equal(200);

    const stt = await gw.k.inject({ url: '/v1/audio/transcriptions/models', token: gw.bob });
    expect(stt.statusCode, stt.body).to.equal(200);
    const s = stt.json<{ object: string; data: Array<{ provider: string; kind: string }> }>();
    expect(s.object).to.equal('list');
    expect(s.data.find((m) => m.provider === 'pocketsphinx'), stt.body.slice(0, 500)).to.include({ kind: 'stt' });
  });
});
