/**
 * The voice manager over a local engine (a tiny in-test TtsEngine handed in as a factory): encoding,
 * formats, speed, quality presets, language, profiles, delivery modes, the text-stream bridge, metrics,
 * residency result shapes, engine availability, and the no-sound-device answers.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import { VoiceError, VoiceManager, encodePcm, type AudioChunk, type PcmAudio } from '@keel/voice';
import { until } from './helpers/until.js';
import { tinyFactory, tinySttFactory, type TinyEngineOptions } from './helpers/voice-tiny-engine.js';

async function voiceError(promise: Promise<unknown> | (() => unknown)): Promise<VoiceError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).to.be.instanceOf(VoiceError);
    return error as VoiceError;
  }
  throw new Error('expected a VoiceError');
}

function local(options: TinyEngineOptions = {}, managerOptions: ConstructorParameters<typeof VoiceManager>[0] = {}) {
  const factory = tinyFactory(options);
  const stt = tinySttFactory();
  const manager = new VoiceManager({ ttsEngine: 'tiny', sttEngine: 'tiny-stt', env: {}, ...managerOptions }, { tts: [factory], stt: [stt] });
  return { manager, factory, stt, engine: () => factory.last! };
}

describe('voice manager: local engine path', () => {
  describe('speakToBytes', () => {
    it('encodes the engine samples as 16-bit mono WAV with @echogarden/wave-codec', async () => {
      const { manager } = local();
      const audio = await manager.speakToBytes('Hello world.');
      expect(audio).to.include({ format: 'wav', contentType: 'audio/wav' });
      const decoded = decodeWaveToFloat32Channels(audio.bytes);
      expect(decoded.sampleRate).to.equal(16_000);
      expect(decoded.audioChannels).to.have.length(1);
      expect(decoded.audioChannels[0]!.length).to.equal('Hello world.'.length * 100);
      expect(audio.bytes.readUInt16LE(34)).to.equal(16); // bits per sample
    });

    it("hands each concurrent call its own metrics through onMetrics (the shared last-utterance record is the last call's)", async () => {
      const { manager } = local();
      const texts = ['A long sentence that is spoken first.', 'Hi.', 'A middle one.'];
      const seen: Array<{ audio_s: number } | null> = texts.map(() => null);
      await Promise.all(texts.map((text, i) => manager.speakToBytes(text, { onMetrics: (m) => (seen[i] = m) })));
      // The tiny engine makes 100 samples at 16 kHz per character: each call's audio length is its own.
      texts.forEach((text, i) => expect(seen[i]?.audio_s).to.be.closeTo((text.length * 100) / 16_000, 1e-6));
    });

    it('pcm is raw s16le of the same samples', async () => {
      const { manager } = local();
      const pcm = await manager.speakToBytes('Hi.', { format: 'pcm' });
      expect(pcm.contentType).to.equal('application/octet-stream');
      expect(pcm.bytes.length).to.equal(3 * 100 * 2);
      expect(pcm.bytes.readInt16LE(2)).to.equal(Math.round(0.25 * Math.sin(1 / 5) * 32767));
    });

    it('formats the engine does not deliver are a 400 "Unsupported audio format: x"', async () => {
      const { manager } = local();
      for (const format of ['mp3', 'ogg', 'flac', 'nope']) {
        const error = await voiceError(manager.speakToBytes('Hi.', { format }));
        expect(error.status).to.equal(400);
        expect(error.message).to.equal(`Unsupported audio format: ${format}`);
      }
    });

    it('empty text, over-long text, bad speed and unsupported language are 400s with clear sentences', async () => {
      const { manager } = local({}, { maxTextChars: 50 });
      expect((await voiceError(manager.speakToBytes('   '))).message).to.equal('Missing input text.');
      expect((await voiceError(manager.speakToBytes('#  \n> '))).message).to.equal('Missing input text.');
      expect((await voiceError(manager.speakToBytes('x'.repeat(51)))).message).to.equal('The text is longer than 50 characters.');
      expect((await voiceError(manager.speakToBytes('Hi.', { speed: 2.5 }))).message).to.equal('Speed must be between 0.5 and 2.0.');
      expect((await voiceError(manager.speakToBytes('Hi.', { language: 'de' }))).message).to.equal('Unsupported or unavailable language: de');
    });

    it('forwards the normalised speech request; instructions are rejected for a local engine', async () => {
      const { manager, engine } = local();
      await manager.speakToBytes('Bonjour.', { language: 'FR', speed: 0.75, profile: 'tiny:bob' });
      expect(engine().requests[0]).to.deep.include({ text: 'Bonjour.', language: 'fr', speed: 0.75, profile: 'bob' });
      const error = await voiceError(manager.speakToBytes('Hi.', { instructions: 'Sing it.' }));
      expect(error.status).to.equal(400);
      expect(error.code).to.equal('unsupported_instructions');
      const profile = await voiceError(manager.speakToBytes('Hi.', { profile: 'zed' }));
      expect(profile.message).to.equal('Profile is not supported by the active TTS provider: zed');
    });

    it("an unavailable engine raises its reason and install command (runtime_missing)", async () => {
      const { manager } = local({ availability: { available: false, code: 'runtime_missing', reason: 'the tiny runtime is not installed', install: 'apt-get install tiny' } });
      const error = await voiceError(manager.speakToBytes('Hi.'));
      expect(error.status).to.equal(501);
      expect(error.code).to.equal('runtime_missing');
      expect(error.install).to.equal('apt-get install tiny');
      expect(error.message).to.equal("TTS engine 'tiny' is not available: the tiny runtime is not installed");
    });

    it('an engine that answers WAV bytes itself: chunks are decoded, pcm is re-encoded', async () => {
      const factory = tinyFactory();
      const manager = new VoiceManager({ ttsEngine: 'tiny', env: {} }, { tts: [factory] });
      const engine = factory.last!;
      const plain = engine.synthesize.bind(engine);
      engine.synthesize = async (request) => {
        const pcm = await plain(request);
        return encodePcm(pcm as PcmAudio, 'wav');
      };
      const chunks = [];
      for await (const chunk of await manager.speakToAudioChunks('Encoded by the engine.')) chunks.push(chunk);
      expect(chunks[0]!.samples.length).to.equal('Encoded by the engine.'.length * 100);
      const pcm = await manager.speakToBytes('Raw.', { format: 'pcm' });
      expect(pcm.bytes.length).to.equal(4 * 100 * 2);
      expect(manager.popLastTtsMetrics()).to.include({ format: 'pcm' });
    });

    it('speakToFile takes the format from the suffix', async () => {
      const { manager } = local();
      const dir = await mkdtemp(join(tmpdir(), 'voice-'));
      try {
        const path = await manager.speakToFile('File me.', join(dir, 'out.pcm'));
        expect((await readFile(path)).length).to.equal('File me.'.length * 100 * 2);
        const wav = await manager.speakToFile('File me.', join(dir, 'out'), {});
        expect((await readFile(wav)).subarray(0, 4).toString()).to.equal('RIFF');
        expect((await voiceError(manager.speakToFile('x', join(dir, 'out.mp3')))).message).to.equal('Unsupported audio format: mp3');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('settings', () => {
    it('speed: 0.5–2.0 accepted, others refused unchanged; an engine without speed refuses x ≠ 1', () => {
      const { manager } = local();
      expect(manager.getSpeed()).to.equal(1);
      expect(manager.setSpeed(0.5)).to.equal(true);
      expect(manager.setSpeed(2)).to.equal(true);
      expect(manager.setSpeed(2.01)).to.equal(false);
      expect(manager.setSpeed(0.49)).to.equal(false);
      expect(manager.setSpeed(Number.NaN)).to.equal(false);
      expect(manager.getSpeed()).to.equal(2);
      const fixed = local({ controls: { speed: false } }).manager;
      expect(fixed.setSpeed(1.5)).to.equal(false);
      expect(fixed.setSpeed(1)).to.equal(true);
    });

    it('quality presets: aliases normalise; engines without presets answer false / null', () => {
      const plain = local().manager;
      expect(plain.setTtsQualityPreset('high')).to.equal(false);
      expect(plain.getTtsQualityPreset()).to.equal(null);
      const { manager, engine } = local({ controls: { qualityPreset: true } });
      expect(manager.getTtsQualityPreset()).to.equal('standard');
      expect(manager.setTtsQualityPreset('fast')).to.equal(true);
      expect(manager.getTtsQualityPreset()).to.equal('low');
      for (const alias of ['balanced', 'std', 'normal', 'default', 'medium', 'med']) {
        expect(manager.setTtsQualityPreset(alias)).to.equal(true);
        expect(manager.getTtsQualityPreset()).to.equal('standard');
      }
      expect(manager.setTtsQualityPreset('ultra')).to.equal(false);
      expect(manager.getTtsQualityPreset()).to.equal('standard');
      return manager.speakToBytes('Hi.', { quality: 'HIGH' }).then(async () => {
        expect(engine().requests[0]!.quality).to.equal('high');
        expect((await voiceError(manager.speakToBytes('Hi.', { quality: 'ultra' }))).message).to.equal('preset must be one of: low|standard|high');
      });
    });

    it('the capability catalog, when plugged in, decides what is supported', async () => {
      const factory = tinyFactory();
      const seen: string[] = [];
      const manager = new VoiceManager({ ttsEngine: 'tiny', env: {} }, { tts: [factory] }, {
        capabilities: {
          getCapabilitySupport: (kind, feature, provider, _model, surface) => {
            seen.push(`${kind}/${feature}/${provider}/${surface}`);
            return feature === 'instructions' ? { support: 'native' } : feature === 'speed' ? { support: 'unsupported', reason: 'fixed rate' } : null;
          },
        },
      });
      await manager.speakToBytes('Hi.', { instructions: 'Softly.' });
      expect(factory.last!.requests[0]!.instructions).to.equal('Softly.');
      expect(manager.setSpeed(1.2)).to.equal(false);
      expect(seen).to.include('tts/speed/tiny/playback');
      expect((await voiceError(manager.speakToBytes('Hi.', { speed: 1.2 }))).code).to.equal('unsupported_speed');
    });

    it('language: engine list validates; name table; empty refused; supported languages', () => {
      const { manager } = local();
      expect(manager.getLanguage()).to.equal('en');
      expect(manager.setLanguage('')).to.equal(false);
      expect(manager.setLanguage('de')).to.equal(false);
      expect(manager.setLanguage(' FR ')).to.equal(true);
      expect(manager.getLanguage()).to.equal('fr');
      expect(manager.getLanguageName()).to.equal('French');
      expect(manager.getLanguageName('ja')).to.equal('Japanese');
      expect(manager.getLanguageName('xx')).to.equal('xx');
      expect(manager.getSupportedLanguages()).to.deep.equal(['en', 'fr']);
      expect(manager.setVoice('en', 'ignored')).to.equal(true);
      const none = new VoiceManager({ ttsEngine: 'none', env: {} });
      expect(none.getSupportedLanguages()).to.have.length(32);
      expect(none.setLanguage('de')).to.equal(true);
    });

    it('a language the engine lacks falls back to en at construction and on engine switch', async () => {
      const { manager } = local({}, { language: 'de' });
      expect(manager.getLanguage()).to.equal('en');
      const other = tinyFactory({ id: 'frenchonly', languages: ['fr'] });
      const m2 = new VoiceManager({ ttsEngine: 'tiny', language: 'en', env: {} }, { tts: [tinyFactory(), other] });
      expect(await m2.setTtsEngine('FrenchOnly')).to.equal('frenchonly');
      expect(m2.getLanguage()).to.equal('fr');
    });

    it('profiles: kind rule, qualified ids, default profile after an engine switch', async () => {
      const { manager } = local();
      expect((await manager.getProfiles()).map((p) => p.profile_id)).to.deep.equal(['amy', 'bob']);
      expect((await manager.getActiveProfile())!.profile_id).to.equal('amy');
      expect(await manager.setProfile('tiny:bob')).to.equal(true);
      expect((await manager.getActiveProfile())!.label).to.equal('BOB');
      expect(await manager.setProfile('carl')).to.equal(false);
      for (const call of [() => manager.getProfiles('stt'), () => manager.setProfile('amy', 'cloning'), () => manager.getActiveProfile('x')]) {
        const error = await voiceError(call());
        expect(error.message).to.equal("Only kind='tts' is supported for now.");
      }
      await manager.setTtsEngine('tiny');
      expect((await manager.getActiveProfile())!.profile_id).to.equal('amy');
    });

    it('setTtsEngine closes the old adapter; a failing build leaves the old one in place', async () => {
      const { manager, factory } = local();
      const first = factory.last!;
      await manager.setTtsEngine('tiny', 'tiny-2');
      expect(first.closed).to.equal(true);
      expect(manager.getTtsModel()).to.equal('tiny-2');
      const error = await voiceError(manager.setTtsEngine('compatible'));
      expect(error.message).to.match(/^Missing remote audio base URL/);
      expect(manager.ttsEngineId).to.equal('tiny');
      expect(manager.getTtsModel()).to.equal('tiny-2');
    });

    it('delivery modes (B.5): aliases, booleans, override wins, mixed, errors', () => {
      const { manager } = local();
      expect(manager.getTtsDeliveryModes()).to.deep.equal({ override: null, base: 'buffered', clone: 'streamed' });
      expect(manager.getTtsDeliveryMode()).to.equal('mixed');
      expect(manager.setTtsDeliveryMode('chunks')).to.equal(true);
      expect(manager.getTtsDeliveryModes()).to.deep.equal({ override: 'streamed', base: 'streamed', clone: 'streamed' });
      expect(manager.getTtsDeliveryMode()).to.equal('streamed');
      manager.setTtsDeliveryMode(false);
      expect(manager.getTtsDeliveryModes()).to.deep.equal({ override: 'buffered', base: 'buffered', clone: 'buffered' });
      manager.setTtsDeliveryMode(null);
      expect(manager.getTtsDeliveryModes()).to.deep.equal({ override: null, base: 'buffered', clone: 'buffered' });
      for (const alias of ['full', 'wav', 'file', 'off', 'false', '0']) {
        manager.setTtsDeliveryMode(alias);
        expect(manager.getTtsDeliveryModes().override).to.equal('buffered');
      }
      for (const alias of ['stream', 'chunked', 'on', 'true', '1', true]) {
        manager.setTtsDeliveryMode(alias);
        expect(manager.getTtsDeliveryModes().override).to.equal('streamed');
      }
      expect(() => manager.setTtsDeliveryMode('')).to.throw(VoiceError, 'mode must be non-empty');
      expect(() => manager.setTtsDeliveryMode('sometimes')).to.throw(VoiceError, "Unsupported delivery mode: 'sometimes' (expected buffered|streamed)");
      expect(() => new VoiceManager({ ttsEngine: 'none', ttsDeliveryMode: 'bad', env: {} })).to.throw(VoiceError, 'Unsupported delivery mode');
      expect(new VoiceManager({ ttsEngine: 'none', ttsDeliveryMode: 'stream', env: {} }).getTtsDeliveryMode()).to.equal('streamed');
    });

    it('codebook settings: a typo fails before any adapter is built; both are validated before either applies', () => {
      const factory = tinyFactory();
      expect(() => new VoiceManager({ ttsEngine: 'tiny', codebookPredictor: 'autoo', env: {} }, { tts: [factory] })).to.throw(VoiceError, 'predictor must be one of auto, reference');
      expect(() => new VoiceManager({ ttsEngine: 'tiny', codebookSampler: 'greedy', env: {} }, { tts: [factory] })).to.throw(VoiceError, 'sampler must be one of multinomial, exponential');
      expect(factory.created).to.equal(0);
      const { manager } = local();
      expect(manager.getCodebookGeneration()).to.deep.equal({ predictor: 'auto', sampler: 'multinomial' });
      expect(manager.setCodebookGeneration({ predictor: 'Reference' })).to.deep.equal({ predictor: 'reference', sampler: 'multinomial' });
      expect(() => manager.setCodebookGeneration({ predictor: 'auto', sampler: 'nope' })).to.throw(VoiceError);
      expect(manager.getCodebookGeneration()).to.deep.equal({ predictor: 'reference', sampler: 'multinomial' });
    });

    it('whisper sizes: large means large-v3; unknown sizes refused', () => {
      const { manager } = local();
      expect(manager.getWhisper()).to.equal('base');
      expect(manager.setWhisper('large')).to.equal(true);
      expect(manager.getWhisper()).to.equal('large-v3');
      expect(manager.setWhisper('huge')).to.equal(false);
    });
  });

  describe('chunks and the text-stream bridge', () => {
    it("speakToAudioChunks respects the engine's smaller segment limit and records streamed metrics", async () => {
      const { manager, engine } = local({ maxSegmentChars: 80 });
      const text = 'Short. ' + Array.from({ length: 8 }, (_, i) => `Sentence ${i} is here and is of modest length.`).join(' ');
      const chunks: AudioChunk[] = [];
      for await (const chunk of await manager.speakToAudioChunks(text)) chunks.push(chunk);
      expect(chunks[0]!.text).to.equal('Short.');
      for (const chunk of chunks) expect(chunk.text.length).to.be.at.most(80);
      expect(chunks.map((c) => c.index)).to.deep.equal(chunks.map((_, i) => i));
      expect(engine().requests.map((r) => r.text)).to.deep.equal(chunks.map((c) => c.text));
      const metrics = manager.popLastTtsMetrics()!;
      expect(metrics).to.include({ engine: 'tiny', streaming: true, cancelled: false, segments: chunks.length, chunks: chunks.length, segment_max_chars: 80, first_segment_max_chars: 60, language: 'en', speed: 1 });
      expect(metrics.audio_s).to.be.closeTo(chunks.reduce((s, c) => s + c.samples.length, 0) / 16_000, 1e-6);
    });

    it('leaving the chunk loop early cancels the rest', async () => {
      const { manager, engine } = local();
      const text = Array.from({ length: 20 }, (_, i) => `Sentence ${i} goes on for a while to fill the segment up.`).join(' ');
      for await (const chunk of await manager.speakToAudioChunks(text)) {
        expect(chunk.index).to.equal(0);
        break;
      }
      await until(() => manager.popLastTtsMetrics(), { what: 'the cancelled stream to record metrics', ok: (m) => m !== null && m.cancelled === true });
      expect(engine().requests.length).to.be.lessThan(5);
    });

    it('push / close / join: the first clause is spoken at once; text pushed meanwhile is packed', async () => {
      const { manager, engine } = local({ gated: true });
      const stream = await manager.openTtsTextStream();
      const texts: string[] = [];
      const reading = (async () => {
        for await (const chunk of stream) texts.push(chunk.text);
      })();
      expect(stream.push('Hello there, ')).to.equal(true);
      await until(() => engine().held, { what: 'the first segment to reach the engine', ok: (n) => n === 1 });
      expect(engine().requests[0]!.text).to.equal('Hello there,');
      // While the engine works on the first clause, three sentences arrive: they are packed into one call.
      stream.push('this is the rest. It has two sentences. ');
      stream.push('And a third. And an unfinished');
      engine().release();
      await until(() => engine().held, { what: 'the second segment', ok: (n) => n === 1 });
      expect(engine().requests[1]!.text).to.equal('this is the rest. It has two sentences. And a third.');
      stream.close();
      expect(stream.push('too late')).to.equal(false);
      engine().release();
      await until(() => engine().held, { what: 'the final segment', ok: (n) => n === 1 });
      engine().release();
      expect(await stream.join(30_000)).to.equal(true);
      await reading;
      expect(texts).to.deep.equal(['Hello there,', 'this is the rest. It has two sentences. And a third.', 'And an unfinished']);
      const metrics = manager.popLastTtsMetrics()!;
      expect(metrics).to.include({ streaming: true, cancelled: false, chunks: 3, segments: 3 });
    });

    it('cancel stops before the next chunk; join answers false while unfinished, true after', async () => {
      const { manager, engine } = local({ gated: true });
      const stream = await manager.openTtsTextStream({ onAudio: () => undefined });
      stream.push('First clause, then more text. ');
      await until(() => engine().held, { what: 'the engine to be busy', ok: (n) => n === 1 });
      expect(await stream.join(10)).to.equal(false);
      stream.cancel();
      expect(await stream.join(30_000)).to.equal(true);
      expect(stream.cancelled).to.equal(true);
      expect(stream.push('more')).to.equal(false);
      expect(manager.popLastTtsMetrics()).to.include({ cancelled: true, chunks: 0 });
    });

    it('opening a stream cancels the previous one; stopSpeaking cancels the open one', async () => {
      const { manager } = local({ gated: true });
      const first = await manager.openTtsTextStream({ onAudio: () => undefined });
      const second = await manager.openTtsTextStream({ onAudio: () => undefined });
      expect(await first.join(30_000)).to.equal(true);
      expect(first.cancelled).to.equal(true);
      expect(second.cancelled).to.equal(false);
      expect(manager.stopSpeaking()).to.equal(true);
      expect(await second.join(30_000)).to.equal(true);
      expect(second.cancelled).to.equal(true);
      expect(manager.stopSpeaking()).to.equal(false);
    });

    it('a stream refuses text beyond maxTextChars in total', async () => {
      const { manager } = local({}, { maxTextChars: 30 });
      const stream = await manager.openTtsTextStream({ onAudio: () => undefined });
      expect(stream.push('Twenty characters ok')).to.equal(true);
      expect(() => stream.push(' and eleven')).to.throw(VoiceError, 'The text stream accepts at most 30 characters.');
      stream.close();
      expect(await stream.join(30_000)).to.equal(true);
    });

    it('markdown is stripped per segment; maxChars narrows the limit', async () => {
      const { manager, engine } = local();
      const chunks: string[] = [];
      const stream = await manager.openTtsTextStream({ maxChars: 40, onAudio: (c) => void chunks.push(c.text) });
      stream.push('**Bold** start. A *long* sentence that needs more than forty characters to end.');
      stream.close();
      await stream.join();
      expect(engine().requests[0]!.text).to.equal('Bold start.');
      for (const r of engine().requests) expect(r.text.length).to.be.at.most(40);
      expect(chunks.length).to.equal(engine().requests.length);
    });

    it('an engine failure ends the stream and reaches the reader', async () => {
      const factory = tinyFactory();
      const manager = new VoiceManager({ ttsEngine: 'tiny', env: {} }, { tts: [factory] });
      factory.last!.synthesize = async () => {
        throw new VoiceError('engine exploded', 500, 'engine_failed');
      };
      const chunks = await manager.speakToAudioChunks('Hello there.');
      let caught: unknown;
      try {
        for await (const _ of chunks) void _;
      } catch (error) {
        caught = error;
      }
      expect((caught as Error).message).to.equal('engine exploded');
    });
  });

  describe('recognition', () => {
    it('transcribeFromBytes builds the STT engine lazily and passes language and filename', async () => {
      const { manager, stt } = local();
      expect(stt.last).to.equal(undefined);
      const text = await manager.transcribeFromBytes(Buffer.from('RIFFabcd'), { language: 'FR' });
      expect(text).to.equal('8 bytes in fr');
      expect(stt.last!.calls[0]!.audio.filename).to.equal('audio.wav');
    });

    it('transcribeFile reads regular files only, within the size limit', async () => {
      const { manager } = local({}, { maxAudioFileBytes: 10 });
      const dir = await mkdtemp(join(tmpdir(), 'voice-'));
      try {
        const path = join(dir, 'a.wav');
        await manager.speakToFile('x', path);
        expect((await voiceError(manager.transcribeFile(path))).message).to.match(/larger than 10 bytes/);
        expect((await voiceError(manager.transcribeFile(dir))).message).to.match(/^Not a regular file/);
        expect((await voiceError(manager.transcribeFile(join(dir, 'missing.wav')))).status).to.equal(404);
        const ok = local().manager;
        expect(await ok.transcribeFile(path)).to.match(/bytes in en$/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('stt none answers 501 "No STT engine is available."', async () => {
      const manager = new VoiceManager({ ttsEngine: 'none', sttEngine: 'none', env: {} });
      const error = await voiceError(manager.transcribeFromBytes(Buffer.from('x')));
      expect(error.status).to.equal(501);
      expect(error.message.split('\n')[0]).to.equal('No STT engine is available.');
      expect(() => new VoiceManager({ ttsEngine: 'none', sttEngine: 'vosk', env: {} })).to.throw(VoiceError, 'Unknown stt_engine: vosk. Supported: auto, compatible, hosted, none');
    });
  });

  describe('residency (B.9)', () => {
    it('preload with warmup: resident, warmed via speak_to_bytes; unload; list', async () => {
      const { manager, engine } = local();
      expect(manager.listResidentComponents()).to.deep.equal([]);
      const result = await manager.preloadTtsEngine();
      expect(result).to.deep.equal({
        component: 'tts_engine',
        engine: 'tiny',
        model: null,
        local: true,
        unloadable: true,
        runtime_info: {},
        state: 'resident',
        resident: true,
        engine_cached: true,
        engine_cached_before: false,
        engine_cached_after: true,
        warmed: true,
        warm_error: null,
        warmed_via: 'speak_to_bytes',
        error: null,
      });
      expect(engine().requests[0]!.text).to.equal('Hello.');
      expect(manager.listResidentComponents()).to.deep.equal([{ component: 'tts_engine', engine: 'tiny', model: null, resident: true, local: true }]);
      expect(await manager.unloadTtsEngine()).to.deep.equal({ component: 'tts_engine', engine: 'tiny', unloaded: true, state: 'unloaded', resident: false, local: true, unloadable: true, error: null });
      expect((await manager.unloadTtsEngine()).state).to.equal('not_loaded');
      expect(manager.listResidentComponents()).to.deep.equal([]);
    });

    it('remote engines report configured', async () => {
      const manager = new VoiceManager({ ttsEngine: 'compatible', sttEngine: 'compatible', remoteBaseUrl: 'http://127.0.0.1:9/v1', env: {} });
      const preload = await manager.preloadTtsEngine();
      expect(preload).to.include({ component: 'tts_engine', engine: 'compatible', state: 'configured', resident: false, local: false, unloadable: false, warmed: false });
      expect(await manager.unloadTtsEngine()).to.include({ state: 'configured', unloaded: false, resident: false, local: false });
      expect(await manager.preloadSttEngine()).to.include({ component: 'stt_engine', state: 'configured', local: false });
      expect(await manager.unloadSttEngine()).to.include({ component: 'stt_engine', state: 'configured' });
      await manager.cleanup();
    });

    it('STT preload / unload of a local engine', async () => {
      const { manager } = local();
      expect(await manager.unloadSttEngine()).to.include({ state: 'not_loaded' });
      expect(await manager.preloadSttEngine()).to.include({ component: 'stt_engine', engine: 'tiny-stt', state: 'resident', resident: true, warmed: false });
      expect(manager.listResidentComponents().map((c) => c.component)).to.deep.equal(['stt_engine']);
      expect(await manager.unloadSttEngine()).to.include({ state: 'unloaded', unloaded: true });
    });

    it('a failing preload reports state failed with the error', async () => {
      const { manager } = local({ availability: { available: false, code: 'runtime_missing', reason: 'missing', install: 'apt-get install tiny' } });
      const result = await manager.preloadTtsEngine();
      expect(result).to.include({ state: 'failed', resident: false });
      expect(result.error).to.deep.equal({ code: 'runtime_missing', message: "TTS engine 'tiny' is not available: missing" });
    });
  });

  describe('no sound device', () => {
    it('speak, pause, resume, listen, VAD and AEC answer 501 no_audio_device', async () => {
      const { manager } = local();
      for (const call of [() => manager.speak('Hi.'), () => manager.pauseSpeaking(), () => manager.resumeSpeaking(), () => manager.listen(), () => manager.changeVadAggressiveness(2), () => manager.enableAec()]) {
        const error = await voiceError(call);
        expect(error.status).to.equal(501);
        expect(error.code).to.equal('no_audio_device');
        expect(error.message).to.contain('needs a sound device');
      }
      expect(manager.isSpeaking()).to.equal(false);
      expect(manager.isPaused()).to.equal(false);
      expect(manager.isListening()).to.equal(false);
      expect(manager.stopListening()).to.equal(false);
      expect(manager.pauseListening()).to.equal(false);
      expect(manager.resumeListening()).to.equal(false);
      expect(manager.enableAec(false)).to.equal(true);
      expect(manager.getVoiceMode()).to.equal('wait');
      expect(manager.setVoiceMode('full')).to.equal(true);
      expect(manager.setVoiceMode('loud')).to.equal(false);
      expect(manager.getVoiceMode()).to.equal('full');
      expect(await manager.cleanup()).to.equal(true);
    });
  });
});
