/**
 * The espeak engine (TtsEngine): requests checked here, synthesis in a bounded piscina pool of worker
 * threads running eSpeak NG's WebAssembly build. The pool exists while the engine is resident: made by
 * `preload` or the first request, released by `unload` or `close`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import {
  VoiceError, type AudioFormat, type EngineAvailability, type PcmAudio, type SpeechRequest, type TtsEngine, type VoiceProfile,
} from '@keel/voice';
import type { EspeakFailure, EspeakTask, SpeakResult, VoicesResult, WarmResult } from './protocol.js';
import { prepareText, wordsPerMinute } from './text.js';
import { ENGINE_ID, VoiceCatalog } from './voices.js';

export const ESPEAK_INSTALL = 'npm install espeak-ng@1.0.2';
/** The only model id: espeak has one synthesizer, voices are profiles. */
export const ESPEAK_MODEL = 'espeak-ng';

export interface EspeakOptions {
  /** Worker threads at most (default: 2, or 1 on a single-core machine). */
  maxThreads?: number;
  /** Requests waiting for a thread at most; more answer 503 (default 16). */
  maxQueue?: number;
  /** Longest text accepted, in UTF-16 units (default 4096, OpenAI's input limit). */
  maxTextChars?: number;
  /** A synthesis running longer is stopped, its thread replaced (default 60 000 ms). */
  taskTimeoutMs?: number;
  /** Threads above one are released after this idle time (default 30 000 ms). */
  idleTimeoutMs?: number;
  /** The voice used when a request names none and it serves the language (default `en-us`). */
  defaultVoice?: string;
  /** Path of the npm package's `espeak-ng.js` (default: resolved from this package). */
  modulePath?: string;
}

export const espeakWorkerFile = new URL('./worker.js', import.meta.url);

export class EspeakEngine implements TtsEngine {
  readonly id = ENGINE_ID;
  readonly kind = 'local' as const;
  /** The manager encodes samples; these need nothing beyond the WAV codec. */
  readonly formats: readonly AudioFormat[] = ['wav', 'pcm'];
  readonly defaultProfile: string;
  /** What requests may control: speed (as words per minute) and the voice; no instructions, no quality presets. */
  readonly controls = { speed: true, instructions: false, profile: true, qualityPreset: false } as const;

  private readonly maxThreads: number;
  private readonly maxQueue: number;
  private readonly maxTextChars: number;
  private readonly taskTimeoutMs: number;
  private readonly idleTimeoutMs: number;
  private readonly modulePath: string | undefined;
  private pool: Piscina | undefined;
  private catalogLoad: Promise<VoiceCatalog> | undefined;
  private catalog: VoiceCatalog | undefined;
  /** Set when the module failed to load in a worker (disk looked fine, the module did not). */
  private loadFailure: string | undefined;
  /** Tasks submitted and not settled. Counted here: piscina does not count tasks carrying a signal against its maxQueue. */
  private inFlight = 0;

  constructor(options: EspeakOptions = {}) {
    this.maxThreads = Math.max(1, options.maxThreads ?? Math.min(2, availableParallelism()));
    this.maxQueue = Math.max(0, options.maxQueue ?? 16);
    this.maxTextChars = Math.max(1, options.maxTextChars ?? 4096);
    this.taskTimeoutMs = Math.max(1, options.taskTimeoutMs ?? 60_000);
    this.idleTimeoutMs = Math.max(0, options.idleTimeoutMs ?? 30_000);
    this.defaultProfile = options.defaultVoice ?? 'en-us';
    this.modulePath = options.modulePath ?? resolveModule();
  }

  async availability(): Promise<EngineAvailability> {
    // A disk check only (listings must stay cheap), plus what a failed load taught us.
    const missing = this.missing();
    if (missing) return { available: false, code: 'runtime_missing', reason: missing, install: ESPEAK_INSTALL };
    return { available: true };
  }

  async profiles(): Promise<VoiceProfile[]> {
    return (await this.voices()).profiles();
  }

  async models(): Promise<string[]> {
    return [ESPEAK_MODEL];
  }

  /** espeak's languages once its voice list was read (at preload or first use); empty before that. */
  languages(): string[] {
    return this.catalog?.languages() ?? [];
  }

  async synthesize(request: SpeechRequest, _format: AudioFormat): Promise<PcmAudio> {
    const text = prepareText(request.text, this.maxTextChars);
    const wpm = wordsPerMinute(request.speed);
    if (request.instructions !== undefined && request.instructions.trim() !== '') {
      throw new VoiceError('espeak cannot follow speaking instructions; send the request without instructions.', 400, 'unsupported_instructions');
    }
    if (request.model !== undefined && request.model !== '' && request.model !== ESPEAK_MODEL && request.model !== ENGINE_ID) {
      throw new VoiceError(`espeak has no model '${request.model.slice(0, 64)}'; its only model is '${ESPEAK_MODEL}'.`, 400, 'unknown_model');
    }
    const catalog = await this.voices(request.signal);
    const voice = catalog.resolve(request.language, request.profile);
    const result = await this.run<SpeakResult>({ op: 'speak', modulePath: this.modulePath!, text, voice, wpm }, request.signal);
    return { samples: result.samples, sampleRate: result.sampleRate };
  }

  /** Starts the pool's thread, compiles the module there and reads the voice list. */
  async preload(): Promise<void> {
    await this.run<WarmResult>({ op: 'warm', modulePath: this.modulePath ?? '' });
    await this.voices();
  }

  async unload(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  resident(): boolean {
    return this.pool !== undefined;
  }

  async close(): Promise<void> {
    await this.unload();
  }

  /** espeak's version line, once the voice list was read. */
  version(): string | undefined {
    return this.catalog?.listing.version;
  }

  private missing(): string | undefined {
    if (!this.modulePath || !existsSync(this.modulePath)) {
      return `The espeak-ng module is not installed${this.modulePath ? ` (no ${this.modulePath})` : ''}.`;
    }
    if (!existsSync(this.modulePath.replace(/\.js$/, '.wasm'))) return `The espeak-ng module has no WebAssembly file next to ${this.modulePath}.`;
    return this.loadFailure;
  }

  private voices(signal?: AbortSignal): Promise<VoiceCatalog> {
    if (!this.catalogLoad) {
      this.catalogLoad = this.run<VoicesResult>({ op: 'voices', modulePath: this.modulePath ?? '' }, signal).then((listing) => {
        this.catalog = new VoiceCatalog(listing, this.defaultProfile);
        return this.catalog;
      });
      this.catalogLoad.catch(() => { this.catalogLoad = undefined; });
    }
    return this.catalogLoad;
  }

  private async run<T extends { ok: true }>(task: EspeakTask, signal?: AbortSignal): Promise<T> {
    const missing = this.missing();
    if (missing) throw new VoiceError(`espeak is not available: ${missing} Install it with: ${ESPEAK_INSTALL}`, 501, 'runtime_missing', ESPEAK_INSTALL);
    signal?.throwIfAborted();
    if (this.inFlight >= this.maxThreads + this.maxQueue) {
      throw new VoiceError('espeak is busy: too many requests are waiting. Try again shortly.', 503, 'busy');
    }
    const timeout = AbortSignal.timeout(this.taskTimeoutMs);
    let result: T | EspeakFailure;
    this.inFlight++;
    try {
      result = (await this.ensurePool().run(task, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout })) as T | EspeakFailure;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) throw new VoiceError(`espeak did not finish within ${this.taskTimeoutMs} ms.`, 504, 'timeout');
      throw new VoiceError(`espeak failed: ${(err as Error).message}`, 500, 'engine_error');
    } finally {
      this.inFlight--;
    }
    if (result.ok) return result;
    if (result.code === 'runtime_missing') {
      this.loadFailure = result.message;
      throw new VoiceError(`espeak is not available: ${result.message} Install it with: ${ESPEAK_INSTALL}`, 501, 'runtime_missing', ESPEAK_INSTALL);
    }
    throw new VoiceError(`espeak failed: ${result.message}`, 500, 'engine_error');
  }

  private ensurePool(): Piscina {
    this.pool ??= new Piscina({
      filename: espeakWorkerFile.href,
      minThreads: 1,
      maxThreads: this.maxThreads,
      idleTimeout: this.idleTimeoutMs,
      // The workers need no environment; they never see the host's secrets.
      env: {},
    });
    return this.pool;
  }
}

function resolveModule(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('espeak-ng');
  } catch {
    return undefined;
  }
}
