/**
 * The remote engines `hosted` and `compatible` through the voice manager's public API, against a real
 * HTTP fake of an OpenAI-shaped audio server (reference B.1, B.3, B.9, B.12): speech, transcription,
 * voice and model discovery (shapes, fallback path, TTL), cloning, the B.1 sentences, remote errors,
 * timeouts and oversized answers.
 */
import { expect } from 'chai';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import {
  COMPATIBLE_URL_MISSING,
  HOSTED_TTS_VOICES,
  REMOTE_CLONE_CONSENT_MISSING,
  HOSTED_KEY_MISSING,
  RemoteVoiceCloner,
  VoiceError,
  VoiceManager,
  cloneIdOf,
  compatibleTtsFactory,
  type RemoteTtsEngine,
} from '@keel/voice';
import { until } from './helpers/until.js';
import { FakeAudioServer } from './helpers/voice-fake-audio-server.js';

async function voiceError(promise: Promise<unknown> | (() => unknown)): Promise<VoiceError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).to.be.instanceOf(VoiceError);
    return error as VoiceError;
  }
  throw new Error('expected a VoiceError');
}

describe('voice manager: remote engines (fake OpenAI-shaped audio server)', () => {
  let server: FakeAudioServer;
  let baseUrl: string;
  const managers: VoiceManager[] = [];
  const env = {}; // no ambient HOSTED_* variables leak into these tests

  const compatible = (extra: ConstructorParameters<typeof VoiceManager>[0] = {}): VoiceManager => {
    const manager = new VoiceManager({ ttsEngine: 'compatible', sttEngine: 'compatible', remoteBaseUrl: baseUrl, remoteApiKey: 'k-remote', env, ...extra });
    managers.push(manager);
    return manager;
  };

  beforeEach(async () => {
    server = new FakeAudioServer({ apiKey: 'k-remote' });
    baseUrl = await server.start();
  });

  afterEach(async () => {
    await Promise.all(managers.splice(0).map((m) => m.cleanup()));
    await server.stop();
  });

  describe('construction and engine resolution (B.1, B.3)', () => {
    it('hosted without a key raises the B.1 sentence; compatible without a base URL too', async () => {
      const hosted = await voiceError(() => new VoiceManager({ env }));
      expect(hosted.message).to.equal(HOSTED_KEY_MISSING);
      expect(hosted.message).to.equal('Hosted audio requires HOSTED_API_KEY or remote_api_key=...');
      expect(hosted.status).to.equal(501);
      const auto = await voiceError(() => new VoiceManager({ ttsEngine: 'auto', env }));
      expect(auto.message).to.equal(HOSTED_KEY_MISSING);
      const compat = await voiceError(() => new VoiceManager({ ttsEngine: 'compatible', env }));
      expect(compat.message).to.equal(COMPATIBLE_URL_MISSING);
      expect(compat.message).to.equal('Missing remote audio base URL. Set `remote_base_url=...` or HOSTED_BASE_URL.');
    });

    it('auto resolves to hosted; remote, proxy and compatible to compatible; none builds no adapter', async () => {
      const manager = new VoiceManager({ ttsEngine: 'auto', hostedApiKey: 'k-hosted', hostedBaseUrl: baseUrl, remoteBaseUrl: baseUrl, env });
      managers.push(manager);
      expect(manager.ttsEngineId).to.equal('hosted');
      expect(await manager.setTtsEngine('remote')).to.equal('compatible');
      expect(manager.ttsEngineId).to.equal('compatible');
      expect(await manager.setTtsEngine('proxy')).to.equal('compatible');
      expect(await manager.setTtsEngine('none')).to.equal('none');
      expect(manager.ttsEngine).to.equal(null);
      const none = await voiceError(manager.speakToBytes('Hello.'));
      expect(none.status).to.equal(501);
      expect(none.code).to.equal('no_tts_engine');
    });

    it('an unknown engine id is a 400 naming the supported list', async () => {
      const error = await voiceError(() => new VoiceManager({ ttsEngine: 'nope', env }));
      expect(error.status).to.equal(400);
      expect(error.message).to.equal('Unknown tts_engine: nope. Supported: auto, compatible, hosted, none');
      const manager = compatible();
      const later = await voiceError(manager.setTtsEngine('piper'));
      expect(later.message).to.match(/^Unknown tts_engine: piper\. Supported: auto, compatible, hosted, none$/);
      expect(manager.ttsEngineId).to.equal('compatible');
    });

    it('setTtsEngine resets to the default profile: hosted alloy', async () => {
      const manager = compatible({ hostedApiKey: 'k-remote', hostedBaseUrl: baseUrl });
      expect(await manager.getActiveProfile()).to.equal(null);
      await manager.setTtsEngine('hosted');
      expect((await manager.getActiveProfile())!.profile_id).to.equal('alloy');
    });
  });

  describe('timeouts, TTL and caps resolved (B.1, B.9)', () => {
    const limitsOf = (options: ConstructorParameters<typeof VoiceManager>[0]): RemoteTtsEngine['limits'] => {
      const manager = compatible(options);
      return (manager.ttsEngine as RemoteTtsEngine).limits;
    };

    it('remote timeout: the setting, else VOICE_REMOTE_TIMEOUT_S (or an alias), else 60; ≤0 and junk give 60', () => {
      expect(limitsOf({}).timeoutMs).to.equal(60_000);
      expect(limitsOf({ remoteTimeoutS: 12 }).timeoutMs).to.equal(12_000);
      expect(limitsOf({ env: { VOICE_REMOTE_TIMEOUT_S: '7' } }).timeoutMs).to.equal(7_000);
      expect(limitsOf({ env: { VOICE_COMPATIBLE_TIMEOUT_S: '3' } }).timeoutMs).to.equal(3_000);
      expect(limitsOf({ env: { VOICE_REMOTE_TIMEOUT_S: '7', VOICE_HOSTED_TIMEOUT_S: '3' } }).timeoutMs).to.equal(7_000);
      expect(compatible({ env: { VOICE_REMOTE_TIMEOUT_S: '7' } }).engineSettings().remoteTimeoutS).to.equal(7);
      expect(limitsOf({ remoteTimeoutS: 12, env: { VOICE_REMOTE_TIMEOUT_S: '7' } }).timeoutMs).to.equal(12_000);
      for (const bad of ['0', '-5', 'soon', 'Infinity']) expect(limitsOf({ env: { VOICE_REMOTE_TIMEOUT_S: bad } }).timeoutMs, bad).to.equal(60_000);
      expect(limitsOf({ remoteTimeoutS: -3 }).timeoutMs).to.equal(60_000);
    });

    it('discovery probes use min(budget 5 s, remote timeout); the TTL is at least 300 s', () => {
      expect(limitsOf({}).discoveryTimeoutMs).to.equal(5_000);
      expect(limitsOf({ remoteTimeoutS: 2 }).discoveryTimeoutMs).to.equal(2_000);
      expect(limitsOf({ env: { VOICE_DISCOVERY_TIMEOUT_S: '9' } }).discoveryTimeoutMs).to.equal(9_000);
      expect(limitsOf({ env: { VOICE_DISCOVERY_TIMEOUT_S: '0' } }).discoveryTimeoutMs).to.equal(5_000);
      expect(limitsOf({}).discoveryTtlMs).to.equal(300_000);
      expect(limitsOf({ env: { VOICE_REMOTE_DISCOVERY_TTL_S: '900' } }).discoveryTtlMs).to.equal(900_000);
      for (const low of ['10', 'x', 'NaN', '-1']) expect(limitsOf({ env: { VOICE_REMOTE_DISCOVERY_TTL_S: low } }).discoveryTtlMs, low).to.equal(300_000);
      expect(limitsOf({ discoveryTtlS: 60 }).discoveryTtlMs).to.equal(300_000);
    });

    it('a probe gives up after the remote timeout when it is shorter than the budget', async () => {
      const manager = compatible({ remoteTimeoutS: 0.3 });
      server.faults.set('/audio/voices', { hang: true });
      const error = await voiceError((manager.ttsEngine as RemoteTtsEngine).profiles());
      expect(error.message).to.match(/did not answer within 0\.3 s/);
    });

    it('the answer caps default to 64 MiB of audio and 4 MiB of JSON', () => {
      expect(limitsOf({})).to.include({ maxAudioBytes: 64 * 1024 * 1024, maxJsonBytes: 4 * 1024 * 1024 });
    });
  });

  describe('speech (POST /audio/speech)', () => {
    it('speakToBytes sends the B.12 JSON with the bearer key and answers the real WAV', async () => {
      const manager = compatible({ ttsModel: 'fake-tts-1' });
      expect(await manager.setProfile('ember')).to.equal(true);
      manager.setSpeed(1.5);
      const audio = await manager.speakToBytes('Hello from the remote engine.', { instructions: 'Calm.' });
      expect(audio.format).to.equal('wav');
      expect(audio.contentType).to.equal('audio/wav');
      const decoded = decodeWaveToFloat32Channels(audio.bytes);
      expect(decoded.sampleRate).to.equal(16_000);
      expect(decoded.audioChannels[0]!.length).to.equal(server.speechFor('Hello from the remote engine.').length);
      const [request] = server.requestsTo('/audio/speech');
      expect(request!.headers.authorization).to.equal('Bearer k-remote');
      expect(request!.json).to.deep.equal({ input: 'Hello from the remote engine.', response_format: 'wav', model: 'fake-tts-1', voice: 'ember', instructions: 'Calm.', speed: 1.5 });
    });

    it('pcm and other formats the remote writes pass through; markdown is stripped unless told not to', async () => {
      const manager = compatible();
      const pcm = await manager.speakToBytes('Raw **bytes** please.', { format: 'pcm' });
      expect(pcm.contentType).to.equal('application/octet-stream');
      expect(pcm.bytes.length).to.equal(server.speechFor('Raw bytes please.').length * 2);
      expect(server.requestsTo('/audio/speech')[0]!.json!.input).to.equal('Raw bytes please.');
      const mp3 = await manager.speakToBytes('# Title', { format: 'mp3', sanitizeSyntax: false });
      expect(mp3.bytes.toString()).to.equal('FAKE-MP3:# Title');
      expect(mp3.contentType).to.equal('audio/mpeg');
      const bad = await voiceError(manager.speakToBytes('x', { format: 'aiff' }));
      expect(bad.status).to.equal(400);
      expect(bad.message).to.equal('Unsupported audio format: aiff');
    });

    it('speakToAudioChunks asks the remote segment by segment (first ≤ 60) and yields decoded samples', async () => {
      const manager = compatible();
      const text = 'This first clause is short, and then the text goes on. A second sentence follows here. And a third one ends it.';
      const chunks = [];
      for await (const chunk of await manager.speakToAudioChunks(text)) chunks.push(chunk);
      const inputs = server.requestsTo('/audio/speech').map((r) => r.json!.input as string);
      expect(inputs[0]).to.equal('This first clause is short,');
      expect(inputs.join(' ')).to.equal(text);
      expect(chunks.map((c) => c.text)).to.deep.equal(inputs);
      for (const [i, chunk] of chunks.entries()) {
        expect(chunk.sampleRate).to.equal(16_000);
        expect(chunk.samples.length).to.equal(server.speechFor(inputs[i]!).length);
      }
      const metrics = manager.popLastTtsMetrics()!;
      expect(metrics).to.include({ engine: 'compatible', streaming: true, chunks: chunks.length, segments: chunks.length, first_segment_max_chars: 60, segment_max_chars: 240 });
      expect(metrics.audio_s).to.be.closeTo(chunks.reduce((s, c) => s + c.samples.length, 0) / 16_000, 1e-3);
      expect(metrics.ttfb_s).to.be.at.most(metrics.synth_s);
      expect(manager.popLastTtsMetrics()).to.equal(null);
    });

    it('records buffered metrics for bytes (B.10)', async () => {
      const manager = compatible();
      await manager.speakToBytes('Metrics please.');
      const metrics = manager.popLastTtsMetrics()!;
      expect(metrics).to.include({ engine: 'compatible', format: 'wav', language: 'en', request_contract: 'speech_request_v1', sample_rate: 16_000, channels: 1, chunks: 1, segments: 1 });
      expect(metrics.audio_frames).to.equal(server.speechFor('Metrics please.').length);
      expect(metrics.rtf).to.be.closeTo(metrics.synth_s / metrics.audio_s, 1e-3);
    });

    it("a remote error becomes VoiceError 502 carrying the remote's message", async () => {
      const manager = compatible();
      server.faults.set('/audio/speech', { status: 429, message: 'Rate limit reached for requests' });
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.status).to.equal(502);
      expect(error.code).to.equal('remote_error');
      expect(error.message).to.equal('Remote TTS failed (HTTP 429): Rate limit reached for requests');
      const wrongKey = compatible({ remoteApiKey: 'wrong' });
      expect((await voiceError(wrongKey.speakToBytes('Hello.'))).message).to.equal('Remote TTS failed (HTTP 401): Incorrect API key provided.');
    });

    it('a redirect is not followed and never taken as audio', async () => {
      const manager = compatible();
      server.faults.set('/audio/speech', { status: 302, message: 'Moved elsewhere' });
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.message).to.equal('Remote TTS failed (HTTP 302): Moved elsewhere');
      expect(server.requests).to.have.length(1);
    });

    it('an empty answer raises "Remote TTS returned empty audio"', async () => {
      const manager = compatible();
      server.faults.set('/audio/speech', { empty: true });
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.message).to.equal('Remote TTS returned empty audio');
      expect(error.status).to.equal(502);
    });

    it('a remote that never answers fails after the per-request timeout', async () => {
      const manager = compatible({ remoteTimeoutS: 0.3 });
      server.faults.set('/audio/speech', { hang: true });
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.status).to.equal(502);
      expect(error.code).to.equal('remote_timeout');
      expect(error.message).to.match(/did not answer within 0\.3 s/);
    });

    it('an oversized answer is cut off at the cap (streamed without length, and declared)', async () => {
      const manager = compatible({ remoteMaxAudioBytes: 256 * 1024 });
      server.faults.set('/audio/speech', { huge: 50 * 1024 * 1024 });
      const streamed = await voiceError(manager.speakToBytes('Hello.'));
      expect(streamed.code).to.equal('remote_too_large');
      expect(streamed.message).to.match(/more than the 262144-byte limit/);
      server.faults.delete('/audio/speech');
      const declared = compatible({ remoteMaxAudioBytes: 1000 });
      const error = await voiceError(declared.speakToBytes('A sentence long enough to make more than a thousand bytes of audio.'));
      expect(error.code).to.equal('remote_too_large');
    });

    it('an unreachable remote is a 502 naming the endpoint', async () => {
      const manager = compatible();
      await server.stop();
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.status).to.equal(502);
      expect(error.code).to.equal('remote_unreachable');
      expect(error.message).to.contain('/v1/audio/speech is unreachable');
      server = new FakeAudioServer();
      baseUrl = await server.start();
    });

    it('concurrent calls each get their own audio over the kept-alive connections', async () => {
      const manager = compatible();
      const texts = Array.from({ length: 8 }, (_, i) => `Request number ${i} ${'x'.repeat(i * 10)}.`);
      const answers = await Promise.all(texts.map((t) => manager.speakToBytes(t)));
      answers.forEach((audio, i) => {
        expect(decodeWaveToFloat32Channels(audio.bytes).audioChannels[0]!.length).to.equal(server.speechFor(texts[i]!).length);
      });
    });

    it('an abort signal cancels the request in flight', async () => {
      const manager = compatible();
      server.faults.set('/audio/speech', { hang: true });
      const controller = new AbortController();
      const pending = manager.speakToBytes('Hello.', { signal: controller.signal });
      await until(() => server.requestsTo('/audio/speech').length, { what: 'the request to reach the server', ok: (n) => n === 1 });
      controller.abort();
      const error = await voiceError(pending);
      expect(error.code).to.equal('cancelled');
    });

    it('the hosted-only key is never sent to the compatible base URL', async () => {
      const manager = new VoiceManager({ ttsEngine: 'compatible', remoteBaseUrl: baseUrl, hostedApiKey: 'k-remote', env });
      managers.push(manager);
      const error = await voiceError(manager.speakToBytes('Hello.'));
      expect(error.message).to.contain('HTTP 401');
      expect(server.requestsTo('/audio/speech')[0]!.headers.authorization).to.equal(undefined);
    });
  });

  describe('transcription (POST /audio/transcriptions)', () => {
    it('sends the multipart B.12 fields and answers the text', async () => {
      const manager = compatible({ sttModel: 'fake-whisper' });
      const wav = (await manager.speakToBytes('Round trip.')).bytes;
      const text = await manager.transcribeFromBytes(wav, { language: 'FR', filename: 'clip.wav', prompt: 'yes no' });
      expect(text).to.equal(`received ${wav.length} bytes`);
      const [request] = server.requestsTo('/audio/transcriptions');
      expect(request!.fields).to.deep.equal({ model: 'fake-whisper', language: 'fr', prompt: 'yes no', response_format: 'json' });
      expect(request!.file).to.include({ field: 'file', filename: 'clip.wav', mimeType: 'audio/wav' });
      expect(request!.file!.bytes.equals(wav)).to.equal(true);
      expect(request!.headers.authorization).to.equal('Bearer k-remote');
    });

    it("a caller's content type cannot break the multipart headers; a remote's message is one clean line", async () => {
      const manager = compatible();
      await manager.transcribeFromBytes(Buffer.from('RIFF'), { filename: 'a.wav', contentType: 'audio/wav\r\nX-Evil: 1' });
      expect(server.requestsTo('/audio/transcriptions')[0]!.file!.mimeType).to.equal('application/octet-stream');
      server.faults.set('/audio/transcriptions', { status: 400, message: `bad\r\nforged line\u0007${'x'.repeat(2000)}` });
      const error = await voiceError(manager.transcribeFromBytes(Buffer.from('RIFF')));
      expect(error.message).to.match(/^Remote STT failed \(HTTP 400\): bad forged line x+$/);
      expect(error.message.length).to.be.at.most('Remote STT failed (HTTP 400): '.length + 500);
    });

    it('hosted STT defaults its model; an unsafe filename becomes audio.wav; empty bytes are a 400', async () => {
      const manager = new VoiceManager({ ttsEngine: 'none', sttEngine: 'auto', hostedApiKey: 'k-remote', hostedBaseUrl: baseUrl, env });
      managers.push(manager);
      server.transcript = 'hello world';
      expect(await manager.transcribeFromBytes(Buffer.from('RIFF....'), { filename: '../../etc/passwd' })).to.equal('hello world');
      const [request] = server.requestsTo('/audio/transcriptions');
      expect(request!.fields!.model).to.equal('gpt-4o-mini-transcribe');
      expect(request!.file!.filename).to.equal('audio.wav');
      const empty = await voiceError(manager.transcribeFromBytes(Buffer.alloc(0)));
      expect(empty.status).to.equal(400);
      expect(empty.message).to.equal('Missing audio file.');
    });

    it('an STT answer without text, or over the JSON cap, is a 502', async () => {
      const manager = compatible({ remoteMaxJsonBytes: 1024 });
      server.faults.set('/audio/transcriptions', { raw: JSON.stringify({ words: [] }) });
      expect((await voiceError(manager.transcribeFromBytes(Buffer.from('x')))).message).to.equal('Remote STT answered without a text field.');
      server.faults.set('/audio/transcriptions', { raw: JSON.stringify({ text: 'a'.repeat(5000) }) });
      expect((await voiceError(manager.transcribeFromBytes(Buffer.from('x')))).code).to.equal('remote_too_large');
    });
  });

  describe('discovery (B.9, B.12)', () => {
    it('reads every voice-list shape: profiles, voices, cloned_voices, data (list or nested)', async () => {
      const manager = compatible({ discoveryTtlS: 300 });
      const engine = manager.ttsEngine as RemoteTtsEngine;
      const shapes: [unknown, string[]][] = [
        [{ profiles: ['p1', { profile_id: 'p2', label: 'P two' }] }, ['p1', 'p2']],
        [{ voice_profiles: [{ id: 'vp' }], voices: [{ voice: 'v1' }, { name: 'v2' }] }, ['vp', 'v1', 'v2']],
        [{ cloned_voices: [{ voice_id: 'c1' }] }, ['c1']],
        [{ data: [{ id: 'd1' }, 'd2'] }, ['d1', 'd2']],
        [{ data: { voices: ['n1'], cloned_voices: [{ id: 'n2' }] } }, ['n1', 'n2']],
        [['bare'], ['bare']],
      ];
      for (const [answer, ids] of shapes) {
        server.voicesAnswer = answer;
        const profiles = await engine.profiles({ refresh: true });
        expect(profiles.map((p) => p.profile_id)).to.deep.equal(ids);
        expect(profiles.every((p) => p.engine_id === 'compatible')).to.equal(true);
      }
      server.voicesAnswer = { profiles: [{ profile_id: 'p2', label: 'P two' }] };
      await engine.profiles({ refresh: true });
      expect(await manager.setProfile('compatible:p2')).to.equal(true);
      expect(await manager.getActiveProfile()).to.deep.include({ profile_id: 'p2', label: 'P two' });
      expect(await manager.setProfile('unknown')).to.equal(false);
    });

    it('compatible falls back from /audio/voices to /voices', async () => {
      const manager = compatible();
      server.voicesPathAvailable = false;
      server.voicesAnswer = { voices: ['fallback'] };
      expect((await manager.getProfiles()).map((p) => p.profile_id)).to.deep.equal(['fallback']);
      expect(server.requests.map((r) => r.path)).to.deep.equal(['/audio/voices', '/voices']);
    });

    it('remembers discovery for the TTL (300 s); refresh probes again', async () => {
      const manager = compatible();
      await manager.getProfiles();
      await manager.getProfiles();
      expect(server.requestsTo('/audio/voices')).to.have.length(1);
      await (manager.ttsEngine as RemoteTtsEngine).profiles({ refresh: true });
      expect(server.requestsTo('/audio/voices')).to.have.length(2);
    });

    it('hosted always lists its built-in voices, even when discovery fails', async () => {
      const manager = new VoiceManager({ hostedApiKey: 'k-remote', hostedBaseUrl: baseUrl, env: { VOICE_HOSTED_TTS_VOICES: 'custom-a' } });
      managers.push(manager);
      server.faults.set('/audio/voices', { status: 500, message: 'boom' });
      const ids = (await manager.getProfiles()).map((p) => p.profile_id);
      expect(ids).to.deep.equal([...HOSTED_TTS_VOICES, 'custom-a']);
    });

    it('profile failures give empty lists; only kind tts is allowed', async () => {
      const manager = compatible();
      server.faults.set('/audio/voices', { hang: true });
      server.faults.set('/voices', { hang: true });
      const slow = compatible({ discoveryTimeoutS: 0.3 });
      expect(await slow.getProfiles()).to.deep.equal([]);
      const kind = await voiceError(manager.getProfiles('stt'));
      expect(kind.message).to.equal("Only kind='tts' is supported for now.");
      expect(kind.status).to.equal(400);
    });

    it('an unreachable compatible voice probe rejects at the engine (the catalog marks it unreachable)', async () => {
      const manager = compatible({ discoveryTimeoutS: 0.3 });
      server.faults.set('/audio/voices', { hang: true });
      const error = await voiceError((manager.ttsEngine as RemoteTtsEngine).profiles());
      expect(error.code).to.equal('remote_timeout');
    });

    it('models: hosted known list; compatible filters /models for speech models', async () => {
      const manager = compatible({ hostedApiKey: 'k-remote', hostedBaseUrl: baseUrl, env: { VOICE_REMOTE_TTS_MODELS: 'configured-tts' } });
      expect(await manager.ttsEngine!.models()).to.deep.equal(['configured-tts', 'fake-tts-1']);
      await manager.setTtsEngine('hosted');
      expect(await manager.ttsEngine!.models()).to.deep.equal(['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd']);
    });
  });

  describe('remote cloning (POST /voice/clone)', () => {
    it('compatible: multipart file/name/reference_text; the voice id is read from the B.12 places', async () => {
      const settings = { language: 'en', remoteBaseUrl: baseUrl, remoteApiKey: 'k-remote', remoteTimeoutS: 5, allowDownloads: false, env };
      const cloner = new RemoteVoiceCloner('compatible', settings);
      server.cloneAnswer = { data: { voice_id: 'nested-id' } };
      const result = await cloner.clone({ bytes: Buffer.from('RIFFdata'), filename: 'ref.wav', name: 'Me', referenceText: 'Hello there.' });
      expect(result).to.deep.include({ remote_voice_id: 'nested-id', remote_provider: 'compatible', remote_base_url: baseUrl, remote_clone_path: '/voice/clone' });
      const [request] = server.requestsTo('/voice/clone');
      expect(request!.fields).to.deep.equal({ name: 'Me', reference_text: 'Hello there.' });
      expect(request!.file).to.include({ field: 'file', filename: 'ref.wav' });
      server.cloneAnswer = { ok: true };
      const missing = await voiceError(cloner.clone({ bytes: Buffer.from('x'), filename: 'ref.wav' }));
      expect(missing.message).to.equal('Remote clone response did not include a voice id');
      expect(cloneIdOf({ voice: { id: 'v-id' } })).to.equal('v-id');
      expect(cloneIdOf({ id: 'top' })).to.equal('top');
      expect(cloneIdOf({ voice: 'plain' })).to.equal('plain');
    });

    it('hosted custom voices need a consent id', async () => {
      const cloner = new RemoteVoiceCloner('hosted', { language: 'en', hostedApiKey: 'k', hostedBaseUrl: baseUrl, remoteTimeoutS: 5, allowDownloads: false, env });
      const error = await voiceError(cloner.clone({ bytes: Buffer.from('x'), filename: 'ref.wav' }));
      expect(error.message).to.equal(REMOTE_CLONE_CONSENT_MISSING);
      const withConsent = new RemoteVoiceCloner('hosted', { language: 'en', hostedApiKey: 'k-remote', hostedBaseUrl: baseUrl, remoteTimeoutS: 5, allowDownloads: false, env: { VOICE_HOSTED_VOICE_CONSENT_ID: 'consent-1' } });
      server.faults.set('/audio/voices', { raw: JSON.stringify({ id: 'voice_hosted_1' }) });
      const result = await withConsent.clone({ bytes: Buffer.from('x'), filename: 'ref.wav', name: 'Me' });
      expect(result.remote_voice_id).to.equal('voice_hosted_1');
      expect(server.requestsTo('/audio/voices')[0]!.fields).to.deep.equal({ name: 'Me', consent: 'consent-1' });
      expect(server.requestsTo('/audio/voices')[0]!.file!.field).to.equal('audio_sample');
    });

    it('a remote clone in the store is spoken by its remote with voice = remote id', async () => {
      // The store's layout (src/cloning): remote fields live in `meta`.
      const record = { voice_id: 'abc', name: 'Mine', engine: 'compatible', reference_text: null, meta: { remote_voice_id: 'remote-clone-1', remote_provider: 'compatible', remote_base_url: baseUrl } };
      const store = {
        find: async (id: string) => (id === 'abc' ? record : null),
        list: async () => [record],
        rename: async () => true,
        delete: async () => true,
        setReferenceText: async () => true,
        exportVoice: async (_id: string, path: string) => path,
        importVoice: async () => 'new',
      };
      const manager = new VoiceManager({ ttsEngine: 'compatible', remoteBaseUrl: baseUrl, remoteApiKey: 'k-remote', env }, {}, { clonedVoices: store });
      managers.push(manager);
      await manager.speakToBytes('Speak as my clone.', { voice: 'abc' });
      const [request] = server.requestsTo('/audio/speech');
      expect(request!.json!.voice).to.equal('remote-clone-1');
      expect(request!.headers.authorization).to.equal('Bearer k-remote');
      expect(manager.popLastTtsMetrics()).to.include({ engine: 'clone', voice_id: 'abc', clone_engine: 'compatible' });
      const unknown = await voiceError(manager.speakToBytes('Hi.', { voice: 'zzz' }));
      expect(unknown.status).to.equal(404);
      expect(unknown.message).to.equal('Unknown cloned voice: zzz');
      const streamInstr = await voiceError(manager.speakToAudioChunks('Hi.', { voice: 'abc', instructions: 'Whisper.' }));
      expect(streamInstr.status).to.equal(400);
    });

    it('without a store, cloning calls answer 501', async () => {
      const manager = compatible();
      const error = await voiceError(manager.listClonedVoices());
      expect(error.status).to.equal(501);
      expect(error.code).to.equal('cloning_unavailable');
    });
  });

  it('the factories can be used alone (no manager)', async () => {
    const engine = compatibleTtsFactory.create({ language: 'en', remoteBaseUrl: baseUrl, remoteApiKey: 'k-remote', remoteTimeoutS: 5, allowDownloads: false, env });
    const audio = await engine.synthesize({ text: 'Alone.', language: 'en', speed: 1 }, 'wav');
    expect('bytes' in audio && audio.bytes.subarray(0, 4).toString()).to.equal('RIFF');
    await engine.close?.();
  });
});
