/**
 * The pocketsphinx engine through its public API (issue 17 items 2 and 8): espeak's speech transcribed
 * back in grammar mode to the exact words, keyword spotting, the language model, hostile inputs refused
 * with 400, bounded concurrency, and runtime_missing when the binary or the model is absent.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { VoiceError, type SpeechToTextEngine } from '@keel/voice';
import { PocketsphinxEngine, pocketsphinxEngineFactory, POCKETSPHINX_INSTALL } from '@keel/engine-pocketsphinx';
import { requirePocketsphinx, spokenWav } from './helpers/voice-engines.js';
import { until } from './helpers/until.js';

const settings = { language: 'en', remoteTimeoutS: 60, allowDownloads: false };
const GRAMMAR = 'grammar: turn the lights on | turn the lights off | open the door | close the door';

/** About thirty seconds of speech: long enough that the recognizer is still running when a test acts. */
const TEXT_30S = Array.from({ length: 6 }, (_, i) => `Sentence number ${i + 1} of a long recording keeps the recognizer busy for a while, word after word after word.`).join(' ');

/** Process ids of pocketsphinx recognizers that are children of this test process. */
function recognizers(): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm.startsWith('pocketsphinx') && ppid === process.pid) found.push(Number(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

async function refusal(promise: Promise<unknown>): Promise<VoiceError> {
  try {
    await promise;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(VoiceError);
    return err as VoiceError;
  }
  throw new Error('expected a VoiceError, the call succeeded');
}

describe('voice engine: pocketsphinx (Debian binary, grammar and keyword modes)', function () {
  let engine: SpeechToTextEngine;
  let tmp: string;
  let lightsOn: Buffer;
  before(async function () {
    await requirePocketsphinx(this);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'keel-ps-test-'));
    engine = pocketsphinxEngineFactory({ tmpDir: tmp }).create(settings);
    lightsOn = await spokenWav('turn the lights on');
  });
  after(async () => {
    await engine?.close?.();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('is available, local, WAV in, one model, English only', async () => {
    expect(await engine.availability()).to.deep.equal({ available: true });
    expect([engine.id, engine.kind]).to.deep.equal(['pocketsphinx', 'local']);
    expect(engine.formats).to.deep.equal(['wav']);
    expect(await engine.models()).to.deep.equal(['pocketsphinx-en-us']);
  });

  it('transcribes espeak\'s speech back to the exact words in grammar mode (the round trip)', async () => {
    expect(await engine.transcribe({ bytes: lightsOn, filename: 'speech.wav' }, { language: 'en', prompt: GRAMMAR })).to.deep.equal({ text: 'turn the lights on' });
    const door = await spokenWav('close the door');
    expect(await engine.transcribe({ bytes: door }, { language: 'en', prompt: GRAMMAR })).to.deep.equal({ text: 'close the door' });
    // Grammar words are case-insensitive and may be one per line.
    const lines = 'Grammar:\nTurn the lights ON\nopen the door';
    expect((await engine.transcribe({ bytes: lightsOn }, { language: 'en-US', prompt: lines })).text).to.equal('turn the lights on');
  });

  it('accepts other sample rates and stereo: the audio is resampled to 16 kHz mono first', async () => {
    const { decodeWaveToFloat32Channels, encodeWaveFromFloat32Channels } = await import('@echogarden/wave-codec');
    const decoded = decodeWaveToFloat32Channels(lightsOn);
    const mono = decoded.audioChannels[0]!;
    // Upsample 22050 → 44100 by repeating samples, as two channels: a different rate and layout, same words.
    const up = new Float32Array(mono.length * 2);
    for (let i = 0; i < up.length; i++) up[i] = mono[i >> 1]!;
    const stereo = Buffer.from(encodeWaveFromFloat32Channels([up, up], 44100, 16));
    expect((await engine.transcribe({ bytes: stereo }, { language: 'en', prompt: GRAMMAR })).text).to.equal('turn the lights on');
  });

  it('spots keywords: the phrases heard, in order, and none that were not said', async () => {
    expect((await engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt: 'keywords: lights, kitchen' })).text).to.equal('lights');
    const both = await spokenWav('please open the door and turn the lights on');
    const heard = (await engine.transcribe({ bytes: both }, { language: 'en', prompt: 'keywords: open the door | the lights | radio' })).text;
    expect(heard).to.equal('open the door the lights');
  });

  it('uses the default language model without a grammar prompt (free text prompts are hints it ignores)', async () => {
    const clear = await spokenWav('hello');
    const a = await engine.transcribe({ bytes: clear }, { language: 'en' });
    const b = await engine.transcribe({ bytes: clear }, { language: 'en', prompt: 'A greeting from a robot.' });
    expect(a.text).to.be.a('string');
    expect(b).to.deep.equal(a);
  });

  it('refuses a JSGF-injection prompt and other malformed prompts with 400, writing no grammar', async () => {
    const injections = [
      'grammar: turn the lights on ; public <evil> = open the door',
      'grammar: turn the lights on | <evil>',
      'grammar: import <com.example.*>; turn',
      'grammar: lights /1e-99/',
      'grammar: (turn | open)* the door',
      'keywords: lights /1e-99/',
      'keywords: lights\u0000door',
      'grammar: lights {tag}',
    ];
    for (const prompt of injections) {
      const e = await refusal(engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt }));
      expect([e.status, e.code], prompt).to.deep.equal([400, 'invalid_prompt']);
    }
    for (const prompt of ['grammar:', 'keywords:  , | ', `grammar: ${'a | '.repeat(300)}a`, `grammar: ${'the '.repeat(30)}`, `grammar: ${'x'.repeat(5000)}`]) {
      const e = await refusal(engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt }));
      expect([e.status, e.code], prompt.slice(0, 40)).to.deep.equal([400, 'invalid_prompt']);
    }
    const unknown = await refusal(engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt: 'grammar: turn the zzqxv on' }));
    expect([unknown.status, unknown.code]).to.deep.equal([400, 'unknown_word']);
    expect(unknown.message).to.match(/zzqxv/);
    // Nothing was left behind in the temp folder, refused or not.
    expect(readdirSync(tmp)).to.deep.equal([]);
  });

  it('refuses corrupt, empty, oversized and non-WAV audio with 400', async () => {
    const cases: [Buffer, string][] = [
      [Buffer.from('RIFF\u0010\u0000\u0000\u0000WAVEjunkjunkjunk', 'latin1'), 'invalid_audio'],
      [lightsOn.subarray(0, 30), 'invalid_audio'],
      [Buffer.from('ID3\u0004 this is an mp3, not a wav', 'latin1'), 'unsupported_format'],
      [Buffer.alloc(0), 'unsupported_format'],
      [Buffer.concat([lightsOn.subarray(0, 44)]), 'empty_audio'],
    ];
    for (const [bytes, code] of cases) {
      const e = await refusal(engine.transcribe({ bytes }, { language: 'en', prompt: GRAMMAR }));
      expect([e.status, e.code], code).to.deep.equal([400, code]);
    }
    const small = new PocketsphinxEngine({ maxAudioBytes: 1000, maxAudioSeconds: 0.5, tmpDir: tmp });
    expect((await refusal(small.transcribe({ bytes: lightsOn }, { language: 'en' }))).code).to.equal('audio_too_large');
    const short = new PocketsphinxEngine({ maxAudioSeconds: 0.5, tmpDir: tmp });
    expect((await refusal(short.transcribe({ bytes: lightsOn }, { language: 'en' }))).code).to.equal('audio_too_long');
    await Promise.all([small.close(), short.close()]);
    const lang = await refusal(engine.transcribe({ bytes: lightsOn }, { language: 'fr' }));
    expect([lang.status, lang.code]).to.deep.equal([400, 'unsupported_language']);
    const model = await refusal(engine.transcribe({ bytes: lightsOn }, { language: 'en', model: 'whisper-1' }));
    expect([model.status, model.code]).to.deep.equal([400, 'unknown_model']);
    const notBytes = await refusal(engine.transcribe({ bytes: 'RIFF' as unknown as Buffer }, { language: 'en' }));
    expect(notBytes.status).to.equal(400);
  });

  it('bounds concurrency: a flood gets 503 busy beyond the queue, never hundreds of processes', async () => {
    const gated = new PocketsphinxEngine({ maxConcurrent: 1, maxQueue: 2, tmpDir: tmp });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => gated.transcribe({ bytes: lightsOn }, { language: 'en', prompt: GRAMMAR })));
    const ok = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ text: string }>[];
    const busy = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok.length).to.be.within(1, 3);
    for (const r of ok) expect(r.value.text).to.equal('turn the lights on');
    expect(busy.length).to.equal(12 - ok.length);
    for (const r of busy) expect([r.reason.status, r.reason.code]).to.deep.equal([503, 'busy']);
    expect(readdirSync(tmp)).to.deep.equal([]);
    await gated.close();
  });

  it('stops a request aborted before its process starts, leaving no files', async () => {
    const controller = new AbortController();
    const pending = engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt: GRAMMAR, signal: controller.signal });
    controller.abort(new Error('caller went away'));
    let rejected: unknown;
    await pending.catch((err: unknown) => { rejected = err; });
    expect(String(rejected)).to.match(/caller went away/);
    expect(readdirSync(tmp)).to.deep.equal([]);
    expect((await engine.transcribe({ bytes: lightsOn }, { language: 'en', prompt: GRAMMAR })).text).to.equal('turn the lights on');
  });

  it('kills a running recognizer on abort, on close and at its timeout, and removes its folder', async () => {
    const long = await spokenWav(TEXT_30S);
    const running = async (e: PocketsphinxEngine, signal?: AbortSignal) => {
      const pending = e.transcribe({ bytes: long }, { language: 'en', signal });
      pending.catch(() => undefined);
      // The recognizer itself writes its log: once it exists, the process is running.
      const folder = await until(() => readdirSync(tmp).find((d) => existsSync(path.join(tmp, d, 'pocketsphinx.log'))) ?? '', { what: 'pocketsphinx to start', deadline: 60_000 });
      return { pending, folder };
    };
    const controller = new AbortController();
    const aborted = await running(engine as PocketsphinxEngine, controller.signal);
    controller.abort(new Error('caller went away'));
    expect(String(await aborted.pending.catch((err: unknown) => err))).to.match(/caller went away/);
    expect(existsSync(path.join(tmp, aborted.folder))).to.equal(false);
    expect(recognizers()).to.deep.equal([]);

    const closing = new PocketsphinxEngine({ tmpDir: tmp });
    const closed = await running(closing);
    await closing.close();
    const err = await refusal(closed.pending);
    expect([err.status, err.code]).to.deep.equal([503, 'closed']);
    expect(readdirSync(tmp)).to.deep.equal([]);

    const hasty = new PocketsphinxEngine({ tmpDir: tmp, timeoutMs: 1 });
    const late = await refusal(hasty.transcribe({ bytes: long }, { language: 'en' }));
    expect([late.status, late.code]).to.deep.equal([504, 'timeout']);
    await hasty.close();
    expect(readdirSync(tmp)).to.deep.equal([]);
    await until(() => recognizers(), { what: 'no pocketsphinx process left', ok: (list) => list.length === 0, deadline: 10_000 });
  });

  it('has residency: preload loads the dictionary, unload releases it', async () => {
    const e = new PocketsphinxEngine({ tmpDir: tmp });
    expect(e.resident()).to.equal(false);
    await e.preload();
    expect(e.resident()).to.equal(true);
    await e.unload();
    expect(e.resident()).to.equal(false);
    await e.close();
  });
});

describe('voice engine: pocketsphinx when the runtime is missing', () => {
  for (const [what, options] of [
    ['the binary', { binary: '/nonexistent/bin/pocketsphinx_continuous' }],
    ['the model', { modelDir: '/nonexistent/pocketsphinx/model/en-us' }],
  ] as const) {
    it(`reports runtime_missing with the apt-get command when ${what} is absent`, async () => {
      const engine = new PocketsphinxEngine(options);
      const availability = await engine.availability();
      expect(availability).to.include({ available: false, code: 'runtime_missing', install: 'apt-get install pocketsphinx pocketsphinx-en-us' });
      expect(POCKETSPHINX_INSTALL).to.equal('apt-get install pocketsphinx pocketsphinx-en-us');
      const e = await refusal(engine.transcribe({ bytes: Buffer.from('RIFF') }, { language: 'en' }));
      expect([e.status, e.code, e.install]).to.deep.equal([501, 'runtime_missing', POCKETSPHINX_INSTALL]);
      expect(e.message).to.match(/apt-get install pocketsphinx pocketsphinx-en-us/);
    });
  }
});
