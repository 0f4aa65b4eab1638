/**
 * The pocketsphinx engine (SpeechToTextEngine): Debian's `pocketsphinx_continuous` with the
 * `pocketsphinx-en-us` model, one process per transcription behind a small gate. Three modes, chosen by
 * the request's `prompt` (see prompt.ts): the model's language model, a JSGF grammar of phrases, or
 * keyword spotting.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  VoiceError, type AudioInput, type EngineAvailability, type SpeechToTextEngine, type TranscriptionRequest,
} from '@keel/voice';
import { Piscina } from 'piscina';
import type { AudioResult, AudioTask } from './audio-worker.js';
import { dictionaryWords, forgetDictionaries } from './dictionary.js';
import { Gate } from './gate.js';
import { POCKETSPHINX_INSTALL, recognize, type RunSpec } from './process.js';
import { checkWords, parsePrompt, type PromptLimits } from './prompt.js';

export const ENGINE_ID = 'pocketsphinx';
/** The one model: the Debian package's US English acoustic model, language model and dictionary. */
export const POCKETSPHINX_MODEL = 'pocketsphinx-en-us';
const LANGUAGES = ['en', 'en-us'];

export interface PocketsphinxOptions {
  /** The recognizer binary (default `/usr/bin/pocketsphinx_continuous`). */
  binary?: string;
  /** The model folder (default `/usr/share/pocketsphinx/model/en-us`); `hmm`, `lm` and `dict` default inside it. */
  modelDir?: string;
  hmm?: string;
  lm?: string;
  dict?: string;
  /** Recognizer processes at once (default 2). */
  maxConcurrent?: number;
  /** Transcriptions waiting for a process slot at most; more answer 503 (default 8). */
  maxQueue?: number;
  /** A process running longer is killed: 504 (default 120 000 ms). */
  timeoutMs?: number;
  /** Largest upload (default 25 MiB, OpenAI's limit). */
  maxAudioBytes?: number;
  /** Longest audio (default 300 s). */
  maxAudioSeconds?: number;
  /** Longest prompt (default 4000 characters). */
  maxPromptChars?: number;
  /** Phrases in a grammar or keyword prompt at most (default 200). */
  maxPhrases?: number;
  /** Words in one phrase at most (default 16). */
  maxWordsPerPhrase?: number;
  /**
   * Keyword spotting: a phrase's threshold is 10^-(this × its phones), within 1e-5 … 1e-50 (default 6;
   * larger finds more, with more false alarms).
   */
  keywordPerPhone?: number;
  /** Transcript bytes at most before the process is stopped (default 1 MiB). */
  maxOutputBytes?: number;
  /** Where the private per-request folders go (default the OS temp folder). */
  tmpDir?: string;
}

export class PocketsphinxEngine implements SpeechToTextEngine {
  readonly id = ENGINE_ID;
  readonly kind = 'local' as const;
  readonly formats: readonly string[] = ['wav'];

  private readonly spec: RunSpec;
  private readonly limits: PromptLimits;
  private readonly audioLimits: { maxBytes: number; maxSeconds: number };
  private readonly gate: Gate;
  private readonly running = new Set<AbortController>();
  private loaded = false;
  /** One thread that decodes and resamples uploads; exists while the engine is resident or in use. */
  private audioPool: Piscina | undefined;

  constructor(options: PocketsphinxOptions = {}) {
    const modelDir = options.modelDir ?? '/usr/share/pocketsphinx/model/en-us';
    this.spec = {
      binary: options.binary ?? '/usr/bin/pocketsphinx_continuous',
      hmm: options.hmm ?? path.join(modelDir, 'en-us'),
      lm: options.lm ?? path.join(modelDir, 'en-us.lm.bin'),
      dict: options.dict ?? path.join(modelDir, 'cmudict-en-us.dict'),
      tmpDir: options.tmpDir ?? os.tmpdir(),
      timeoutMs: Math.max(1, options.timeoutMs ?? 120_000),
      maxOutputBytes: Math.max(1024, options.maxOutputBytes ?? 1024 * 1024),
      keywordPerPhone: options.keywordPerPhone ?? 6,
    };
    if (!(this.spec.keywordPerPhone > 0 && this.spec.keywordPerPhone <= 50)) throw new RangeError('keywordPerPhone must be above 0 and at most 50.');
    this.limits = {
      maxPromptChars: options.maxPromptChars ?? 4000,
      maxPhrases: options.maxPhrases ?? 200,
      maxWordsPerPhrase: options.maxWordsPerPhrase ?? 16,
    };
    this.audioLimits = { maxBytes: options.maxAudioBytes ?? 25 * 1024 * 1024, maxSeconds: options.maxAudioSeconds ?? 300 };
    this.gate = new Gate(Math.max(1, options.maxConcurrent ?? 2), Math.max(0, options.maxQueue ?? 8));
  }

  async availability(): Promise<EngineAvailability> {
    const missing = this.missing();
    if (missing) return { available: false, code: 'runtime_missing', reason: missing, install: POCKETSPHINX_INSTALL };
    return { available: true };
  }

  async models(): Promise<string[]> {
    return [POCKETSPHINX_MODEL];
  }

  languages(): string[] {
    return [...LANGUAGES];
  }

  async transcribe(audio: AudioInput, request: TranscriptionRequest): Promise<{ text: string }> {
    const missing = this.missing();
    if (missing) throw new VoiceError(`pocketsphinx is not available: ${missing} Install it with: ${POCKETSPHINX_INSTALL}`, 501, 'runtime_missing', POCKETSPHINX_INSTALL);
    const language = (request.language ?? '').toLowerCase();
    if (language !== '' && !LANGUAGES.includes(language)) {
      throw new VoiceError(`pocketsphinx has a US English model only; language '${language.slice(0, 32)}' is not supported.`, 400, 'unsupported_language');
    }
    if (request.model !== undefined && request.model !== '' && request.model !== POCKETSPHINX_MODEL && request.model !== ENGINE_ID) {
      throw new VoiceError(`pocketsphinx has no model '${request.model.slice(0, 64)}'; its only model is '${POCKETSPHINX_MODEL}'.`, 400, 'unknown_model');
    }
    const mode = parsePrompt(request.prompt, this.limits);
    const dictionary = mode.mode === 'lm' ? new Map<string, number>() : await dictionaryWords(this.spec.dict);
    checkWords(mode, dictionary);
    const raw: unknown = audio?.bytes;
    if (!(raw instanceof Uint8Array)) throw new VoiceError('The audio must be bytes.', 400, 'invalid_audio');
    if (raw.byteLength > this.audioLimits.maxBytes) {
      throw new VoiceError(`The audio is ${raw.byteLength} bytes; this engine accepts at most ${this.audioLimits.maxBytes}.`, 400, 'audio_too_large');
    }
    // The gate comes before decoding: it bounds decoding work and memory as well as processes.
    const release = await this.gate.acquire(request.signal);
    // One controller per request: the caller's abort and `close()` both stop it (and kill its process).
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal!.reason);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    this.running.add(controller);
    try {
      if (request.signal?.aborted) throw request.signal.reason;
      const wav = await this.prepareAudio(raw, controller.signal);
      return { text: await recognize(this.spec, wav, mode, dictionary, controller.signal) };
    } finally {
      this.running.delete(controller);
      request.signal?.removeEventListener('abort', onAbort);
      release();
    }
  }

  /** The upload as 16 kHz mono 16-bit WAV, made in the audio thread. */
  private async prepareAudio(raw: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
    // A private copy moves to the thread: the caller's buffer may be a slice of a shared pool.
    const bytes = new Uint8Array(raw);
    let result: AudioResult;
    try {
      result = (await this.pool().run({ op: 'prepare', bytes, limits: this.audioLimits } satisfies AudioTask, { signal, transferList: [bytes.buffer] })) as AudioResult;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw new VoiceError(`The audio could not be prepared: ${(err as Error).message}`, 500, 'engine_error');
    }
    if (!result.ok) throw new VoiceError(result.message, result.status, result.code);
    if (!('wav' in result)) throw new VoiceError('The audio thread answered without audio.', 500, 'engine_error');
    return result.wav;
  }

  private pool(): Piscina {
    this.audioPool ??= new Piscina({
      filename: new URL('./audio-worker.js', import.meta.url).href,
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: 30_000,
      env: {},
    });
    return this.audioPool;
  }

  /** Loads what stays in this process between requests: the dictionary's word list and the resampler. */
  async preload(): Promise<void> {
    const missing = this.missing();
    if (missing) throw new VoiceError(`pocketsphinx is not available: ${missing} Install it with: ${POCKETSPHINX_INSTALL}`, 501, 'runtime_missing', POCKETSPHINX_INSTALL);
    await Promise.all([dictionaryWords(this.spec.dict), this.pool().run({ op: 'warm' } satisfies AudioTask)]);
    this.loaded = true;
  }

  async unload(): Promise<void> {
    forgetDictionaries();
    this.loaded = false;
    const pool = this.audioPool;
    this.audioPool = undefined;
    await pool?.destroy();
  }

  resident(): boolean {
    return this.loaded && this.audioPool !== undefined;
  }

  /** Kills running recognizer processes. */
  async close(): Promise<void> {
    for (const c of this.running) c.abort(new VoiceError('The pocketsphinx engine was closed.', 503, 'closed'));
    await this.unload();
  }

  /** What is missing on disk, in a sentence; undefined when everything is there. */
  private missing(): string | undefined {
    try {
      accessSync(this.spec.binary, constants.X_OK);
    } catch {
      return `The recognizer ${this.spec.binary} is missing or not executable.`;
    }
    for (const file of [path.join(this.spec.hmm, 'mdef'), this.spec.lm, this.spec.dict]) {
      if (!existsSync(file)) return `The model file ${file} is missing.`;
    }
    return undefined;
  }
}
