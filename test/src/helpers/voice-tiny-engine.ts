/**
 * A tiny in-test local TTS engine (and STT engine) for the voice manager's tests: samples whose length
 * follows the text, every request recorded, residency tracked, and an optional gate that holds each
 * synthesis until the test releases it (to observe what the text-stream bridge packs meanwhile).
 */
import type {
  AudioFormat,
  AudioInput,
  EncodedAudio,
  EngineAvailability,
  PcmAudio,
  SpeechRequest,
  SpeechToTextEngine,
  SpeechToTextEngineFactory,
  TranscriptionRequest,
  TtsControls,
  TtsEngine,
  TtsEngineFactory,
  VoiceProfile,
} from '@keel/voice';

export interface TinyEngineOptions {
  id?: string;
  sampleRate?: number;
  /** Samples per character (default 100). */
  samplesPerChar?: number;
  maxSegmentChars?: number;
  languages?: string[];
  controls?: TtsControls;
  availability?: EngineAvailability;
  /** When set, each synthesis waits for `release()`. */
  gated?: boolean;
}

export class TinyTtsEngine implements TtsEngine {
  readonly id: string;
  readonly kind = 'local' as const;
  readonly formats: readonly AudioFormat[] = ['wav'];
  readonly defaultProfile = 'amy';
  readonly maxSegmentChars?: number;
  readonly controls?: TtsControls;
  readonly requests: SpeechRequest[] = [];
  loaded = false;
  closed = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: TinyEngineOptions = {}) {
    this.id = options.id ?? 'tiny';
    this.maxSegmentChars = options.maxSegmentChars;
    this.controls = options.controls;
  }

  async availability(): Promise<EngineAvailability> {
    return this.options.availability ?? { available: true };
  }

  async profiles(): Promise<VoiceProfile[]> {
    return ['amy', 'bob'].map((id) => ({ engine_id: this.id, profile_id: id, label: id.toUpperCase(), params: {} }));
  }

  async models(): Promise<string[]> {
    return ['tiny-1'];
  }

  languages(): string[] {
    return this.options.languages ?? ['en', 'fr'];
  }

  /** Synthesis calls currently held at the gate. */
  get held(): number {
    return this.waiting.length;
  }

  /** Lets one held synthesis finish. */
  release(): void {
    this.waiting.shift()?.();
  }

  async synthesize(request: SpeechRequest): Promise<PcmAudio | EncodedAudio> {
    this.requests.push(request);
    this.loaded = true;
    if (this.options.gated) {
      await new Promise<void>((resolve, reject) => {
        this.waiting.push(resolve);
        request.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    }
    const n = request.text.length * (this.options.samplesPerChar ?? 100);
    const samples = new Float32Array(n);
    for (let i = 0; i < n; i++) samples[i] = 0.25 * Math.sin(i / 5);
    return { samples, sampleRate: this.options.sampleRate ?? 16_000 };
  }

  async preload(): Promise<void> {
    this.loaded = true;
  }

  async unload(): Promise<void> {
    this.loaded = false;
  }

  resident(): boolean {
    return this.loaded;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A factory that hands out one engine instance per create (the last one is kept for assertions). */
export function tinyFactory(options: TinyEngineOptions = {}): TtsEngineFactory & { last?: TinyTtsEngine; created: number } {
  const factory = {
    id: options.id ?? 'tiny',
    created: 0,
    last: undefined as TinyTtsEngine | undefined,
    create() {
      factory.created++;
      factory.last = new TinyTtsEngine(options);
      return factory.last;
    },
  };
  return factory;
}

/** A local STT engine that answers the size and name of what it was given. */
export class TinySttEngine implements SpeechToTextEngine {
  readonly id = 'tiny-stt';
  readonly kind = 'local' as const;
  readonly formats = ['wav'];
  loaded = false;
  readonly calls: { audio: AudioInput; request: TranscriptionRequest }[] = [];

  async availability(): Promise<EngineAvailability> {
    return { available: true };
  }

  async models(): Promise<string[]> {
    return ['tiny-stt-1'];
  }

  async transcribe(audio: AudioInput, request: TranscriptionRequest): Promise<{ text: string }> {
    this.calls.push({ audio, request });
    this.loaded = true;
    return { text: `${audio.bytes.length} bytes in ${request.language}` };
  }

  async preload(): Promise<void> {
    this.loaded = true;
  }

  async unload(): Promise<void> {
    this.loaded = false;
  }

  resident(): boolean {
    return this.loaded;
  }
}

export function tinySttFactory(): SpeechToTextEngineFactory & { last?: TinySttEngine } {
  const factory = {
    id: 'tiny-stt',
    last: undefined as TinySttEngine | undefined,
    create() {
      factory.last = new TinySttEngine();
      return factory.last;
    },
  };
  return factory;
}
