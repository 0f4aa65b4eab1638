/**
 * The espeak engine through its public API (issue 17 item 2): real synthesis in worker threads,
 * speed and length changing the audio, hostile requests refused, a missing runtime reported.
 */
import { existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { VoiceError, type PcmAudio, type SpeechRequest, type TtsEngine } from '@keel/voice';
import { EspeakEngine, espeakEngineFactory, ESPEAK_INSTALL } from '@keel/engine-espeak';

const settings = { language: 'en', remoteTimeoutS: 60, allowDownloads: false };

async function refusal(promise: Promise<unknown>): Promise<VoiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(VoiceError);
    return err as VoiceError;
  }
  throw new Error('expected a VoiceError, the call succeeded');
}

function seconds(audio: PcmAudio): number {
  return audio.samples.length / audio.sampleRate;
}

/** Root-mean-square level: speech is well above silence. */
function rms(audio: PcmAudio): number {
  let sum = 0;
  for (const s of audio.samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, audio.samples.length));
}

describe('voice engine: espeak (WebAssembly, worker threads)', () => {
  let engine: TtsEngine;
  before(() => {
    engine = espeakEngineFactory({ maxThreads: 1, maxQueue: 4 }).create(settings);
  });
  after(() => engine.close?.());

  const speak = (request: Partial<SpeechRequest>) => engine.synthesize({ text: 'Hello.', language: 'en', speed: 1, ...request }, 'wav') as Promise<PcmAudio>;

  it('is available, local, and resident only after preload until unload', async () => {
    expect(await engine.availability()).to.deep.equal({ available: true });
    expect(engine.id).to.equal('espeak');
    expect(engine.kind).to.equal('local');
    expect(engine.resident!()).to.equal(false);
    await engine.preload!();
    expect(engine.resident!()).to.equal(true);
    await engine.unload!();
    expect(engine.resident!()).to.equal(false);
    await engine.preload!();
    expect(engine.resident!()).to.equal(true);
  });

  it('synthesizes real speech: mono float samples at the WAV file rate, not silence', async () => {
    const audio = await speak({ text: 'The quick brown fox jumps over the lazy dog.' });
    expect(audio.samples).to.be.instanceOf(Float32Array);
    expect(audio.sampleRate).to.equal(22050);
    expect(seconds(audio)).to.be.within(1.5, 6);
    expect(rms(audio)).to.be.greaterThan(0.01);
    for (const s of audio.samples) if (s < -1 || s > 1) throw new Error(`sample out of range: ${s}`);
  });

  it('makes longer audio for longer text, and shorter audio at a higher speed', async () => {
    const short = seconds(await speak({ text: 'Turn the lights on.' }));
    const long = seconds(await speak({ text: 'Turn the lights on. Then turn them off again, and close the kitchen door behind you.' }));
    expect(long).to.be.greaterThan(short * 2);
    const text = 'Speed changes how long this sentence takes to say out loud.';
    const normal = seconds(await speak({ text, speed: 1 }));
    const fast = seconds(await speak({ text, speed: 2 }));
    const slow = seconds(await speak({ text, speed: 0.5 }));
    expect(fast).to.be.lessThan(normal * 0.75);
    expect(slow).to.be.greaterThan(normal * 1.4);
  });

  it('lists espeak\'s own voices as profiles and speaks with a chosen voice and variant', async () => {
    const profiles = await engine.profiles();
    const ids = profiles.map((p) => p.profile_id);
    expect(ids).to.include.members(['en-us', 'en-gb', 'fr-fr', 'de', 'en-us+f3']);
    expect(profiles.every((p) => p.engine_id === 'espeak')).to.equal(true);
    expect(engine.defaultProfile).to.equal('en-us');
    expect(engine.languages()).to.include.members(['en', 'en-us', 'fr', 'de']);
    expect(await engine.models()).to.deep.equal(['espeak-ng']);
    const plain = await speak({ text: 'One two three.', profile: 'en-us' });
    const variant = await speak({ text: 'One two three.', profile: 'en-us+f3' });
    expect(rms(variant)).to.be.greaterThan(0.01);
    expect(Buffer.from(variant.samples.buffer).equals(Buffer.from(plain.samples.buffer))).to.equal(false);
    // Variant names are matched without case but reach espeak as its files are named (`AnxiousAndy`).
    const andy = await speak({ text: 'One two three.', profile: 'en-us+AnxiousAndy' });
    const andyLower = await speak({ text: 'One two three.', profile: 'en-us+anxiousandy' });
    expect(Buffer.from(andyLower.samples.buffer).equals(Buffer.from(andy.samples.buffer))).to.equal(true);
    expect(Buffer.from(andy.samples.buffer).equals(Buffer.from(plain.samples.buffer))).to.equal(false);
    const french = await speak({ text: 'Bonjour tout le monde.', language: 'fr' });
    expect(seconds(french)).to.be.greaterThan(0.5);
  });

  it('speaks text that starts with "-" as words: it never becomes an espeak flag', async () => {
    const marker = path.join(os.tmpdir(), `keel-espeak-flag-${process.pid}.wav`);
    rmSync(marker, { force: true });
    const audio = await speak({ text: `-w ${marker} --voices -v de` });
    // Spoken as words (several seconds of speech), nothing written outside the module, no voice list printed.
    expect(seconds(audio)).to.be.greaterThan(2);
    expect(rms(audio)).to.be.greaterThan(0.01);
    expect(existsSync(marker)).to.equal(false);
  });

  it('refuses hostile or invalid requests with VoiceError 400/404 before synthesis', async () => {
    const huge = await refusal(speak({ text: 'a'.repeat(4097) }));
    expect([huge.status, huge.code]).to.deep.equal([400, 'input_too_long']);
    for (const text of ['', '   \n\t ', '\u0000\u0001']) {
      const e = await refusal(speak({ text }));
      expect([e.status, e.code], JSON.stringify(text)).to.deep.equal([400, 'empty_input']);
    }
    for (const speed of [0, 0.49, 2.01, Number.NaN, Number.POSITIVE_INFINITY]) {
      const e = await refusal(speak({ speed }));
      expect([e.status, e.code], String(speed)).to.deep.equal([400, 'invalid_speed']);
    }
    for (const profile of ['--voices', '-w/tmp/x', 'en-us+f3+m1', 'en-us+no-such', 'no-such-voice']) {
      const e = await refusal(speak({ profile }));
      expect([e.status, e.code], profile).to.deep.equal([404, 'unknown_voice']);
    }
    const lang = await refusal(speak({ language: '--voices' }));
    expect([lang.status, lang.code]).to.deep.equal([400, 'unsupported_language']);
    const instr = await refusal(speak({ instructions: 'whisper softly' }));
    expect([instr.status, instr.code]).to.deep.equal([400, 'unsupported_instructions']);
    const model = await refusal(speak({ model: 'tts-1' }));
    expect([model.status, model.code]).to.deep.equal([400, 'unknown_model']);
    const notText = await refusal(speak({ text: 42 as unknown as string }));
    expect(notText.status).to.equal(400);
  });

  it('accepts text up to the limit and a setting that lowers it', async () => {
    const small = new EspeakEngine({ maxTextChars: 20, maxThreads: 1 });
    try {
      expect(seconds(await small.synthesize({ text: 'twenty characters ok', language: 'en', speed: 1 }, 'wav'))).to.be.greaterThan(0.5);
      const e = await refusal(small.synthesize({ text: 'twenty-one characters', language: 'en', speed: 1 }, 'wav'));
      expect(e.code).to.equal('input_too_long');
    } finally {
      await small.close();
    }
  });

  it('answers 503 busy when more requests wait than the queue holds, and serves the rest', async () => {
    const tight = new EspeakEngine({ maxThreads: 1, maxQueue: 1 });
    try {
      await tight.preload();
      const text = 'A sentence long enough to keep the single worker thread busy for a little while.';
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => tight.synthesize({ text, language: 'en', speed: 1 }, 'wav')));
      const busy = results.filter((r) => r.status === 'rejected');
      expect(busy.length).to.be.greaterThan(0);
      for (const r of busy) expect([(r as PromiseRejectedResult).reason.status, (r as PromiseRejectedResult).reason.code]).to.deep.equal([503, 'busy']);
      expect(results.filter((r) => r.status === 'fulfilled').length).to.be.greaterThan(0);
    } finally {
      await tight.close();
    }
  });

  it('stops on abort: a cancelled request rejects and the engine keeps working', async () => {
    const controller = new AbortController();
    const pending = speak({ text: 'This request is cancelled before it can finish speaking all of its words.', signal: controller.signal });
    controller.abort(new Error('caller went away'));
    let rejected: unknown;
    await pending.catch((err: unknown) => { rejected = err; });
    expect(String(rejected)).to.match(/caller went away/);
    expect(rms(await speak({ text: 'Still here.' }))).to.be.greaterThan(0.01);
  });

  it('stops a synthesis at its time limit with 504, and the engine still works after', async () => {
    const hasty = new EspeakEngine({ maxThreads: 1, taskTimeoutMs: 1 });
    try {
      const e = await refusal(hasty.synthesize({ text: 'Too slow for one millisecond.', language: 'en', speed: 1 }, 'wav'));
      expect([e.status, e.code]).to.deep.equal([504, 'timeout']);
    } finally {
      await hasty.close();
    }
    expect(rms(await speak({ text: 'Still here.' }))).to.be.greaterThan(0.01);
  });

  it('reports runtime_missing with the npm command when the module is absent', async () => {
    const missing = new EspeakEngine({ modulePath: '/nonexistent/espeak-ng/dist/espeak-ng.js' });
    const availability = await missing.availability();
    expect(availability).to.include({ available: false, code: 'runtime_missing', install: ESPEAK_INSTALL });
    expect(ESPEAK_INSTALL).to.equal('npm install espeak-ng@1.0.2');
    const e = await refusal(missing.synthesize({ text: 'Hello.', language: 'en', speed: 1 }, 'wav'));
    expect([e.status, e.code, e.install]).to.deep.equal([501, 'runtime_missing', ESPEAK_INSTALL]);
    expect(missing.resident()).to.equal(false);
    await missing.close();
  });
});
