/**
 * The contracts between the voice manager and its engines (reference voice-vision.md part B).
 * Engines are plain objects made by factories the caller hands the manager, so the library never
 * imports a local engine package: `@keel/engine-espeak` and `@keel/engine-pocketsphinx` implement
 * these interfaces, the voice plugin wires them in.
 */

/** Output formats of speech (reference B.15); which ones an engine can write is in its `formats`. */
export type AudioFormat = 'wav' | 'mp3' | 'flac' | 'ogg' | 'opus' | 'pcm';

/** Mono float samples in [-1, 1]: what local engines produce and `speak_to_audio_chunks` yields. */
export interface PcmAudio {
  samples: Float32Array;
  sampleRate: number;
}

/** Encoded audio ready to send: what remote engines answer and what `speakToBytes` returns. */
export interface EncodedAudio {
  bytes: Buffer;
  format: AudioFormat;
  contentType: string;
}

/** Quality presets (reference B.4). */
export type QualityPreset = 'low' | 'standard' | 'high';

/** Whether an engine can run here; never thrown from listings (reference B.17). */
export type EngineAvailability =
  | { available: true }
  /** `install`: the command that makes it available (e.g. `apt-get install pocketsphinx pocketsphinx-en-us`). */
  | { available: false; reason: string; code: 'runtime_missing' | 'not_configured' | 'unreachable'; install?: string };

/** A voice profile (reference B.2 "Profile record"); the qualified id is `engine_id:profile_id`. */
export interface VoiceProfile {
  engine_id: string;
  profile_id: string;
  label: string;
  description?: string;
  params: Record<string, unknown>;
  tags?: Record<string, unknown>;
  provenance?: Record<string, unknown>;
}

/** One synthesis request, normalised by the manager (contract `speech_request_v1`). */
export interface SpeechRequest {
  text: string;
  language: string;
  /** 0.5 ≤ speed ≤ 2.0; 1 is the engine's normal rate. */
  speed: number;
  profile?: string;
  model?: string;
  instructions?: string;
  quality?: QualityPreset;
  signal?: AbortSignal;
}

/** A text-to-speech engine. Local engines produce samples; remote engines produce encoded bytes. */
export interface TtsEngine {
  /** Lower-case id: `hosted`, `compatible`, `espeak`, ... */
  readonly id: string;
  readonly kind: 'local' | 'remote';
  /** The formats `synthesize` can deliver (a local engine's samples are encoded by the manager). */
  readonly formats: readonly AudioFormat[];
  /** The engine's own segment limit, when smaller than the bridge's 240 characters (reference B.6). */
  readonly maxSegmentChars?: number;
  availability(): Promise<EngineAvailability>;
  /** Remote engines probe (and remember for the discovery TTL); a failed probe rejects with VoiceError. */
  profiles(options?: DiscoveryOptions): Promise<VoiceProfile[]>;
  /** The default profile after `set_tts_engine` (reference B.2); '' when the engine has none. */
  readonly defaultProfile: string;
  models(options?: DiscoveryOptions): Promise<string[]>;
  /**
   * Which request controls the engine honours; an absent entry means "unknown" and the manager falls
   * back to its rules (instructions: remote engines only; speed and profile: forwarded; quality: no).
   * A capability catalog handed to the manager wins over this.
   */
  readonly controls?: TtsControls;
  /** Languages the engine accepts; empty means "passes any through" (the hosted engine). */
  languages(): string[];
  /** Local engines: samples. Remote engines: encoded bytes in `format`. */
  synthesize(request: SpeechRequest, format: AudioFormat): Promise<PcmAudio | EncodedAudio>;
  /** Local engines only: load now (residency, reference B.9). */
  preload?(): Promise<void>;
  unload?(): Promise<void>;
  resident?(): boolean;
  /** Releases workers and processes; the manager calls it on `cleanup`. */
  close?(): Promise<void>;
}

/** Options of discovery calls (reference B.9). */
export interface DiscoveryOptions {
  /** Ignore remembered answers (`refresh_profiles`). */
  refresh?: boolean;
  /** Deadline of this probe in ms; remote engines default to min(discovery budget, remote timeout). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Controls a TTS engine declares (see `TtsEngine.controls`). */
export interface TtsControls {
  speed?: boolean;
  instructions?: boolean;
  profile?: boolean;
  qualityPreset?: boolean;
}

/** Audio handed to recognition, as received (a WAV upload, say); the engine decodes what it accepts. */
export interface AudioInput {
  bytes: Buffer;
  filename?: string;
  contentType?: string;
}

export interface TranscriptionRequest {
  language: string;
  model?: string;
  /**
   * Free text for remote engines (OpenAI's `prompt`). Local engines may read it as a grammar: the
   * pocketsphinx engine documents the forms it accepts (phrase lists, keywords).
   */
  prompt?: string;
  signal?: AbortSignal;
}

export interface SpeechToTextEngine {
  readonly id: string;
  readonly kind: 'local' | 'remote';
  availability(): Promise<EngineAvailability>;
  models(options?: DiscoveryOptions): Promise<string[]>;
  /** Input formats it accepts, by file suffix (`wav`, `flac`, ...). */
  readonly formats: readonly string[];
  transcribe(audio: AudioInput, request: TranscriptionRequest): Promise<{ text: string }>;
  preload?(): Promise<void>;
  unload?(): Promise<void>;
  resident?(): boolean;
  close?(): Promise<void>;
}

/** Settings a factory may need; the manager passes its own (reference B.1, B.13). */
export interface EngineSettings {
  language: string;
  model?: string;
  remoteBaseUrl?: string;
  remoteApiKey?: string;
  remoteTimeoutS: number;
  hostedApiKey?: string;
  hostedBaseUrl?: string;
  allowDownloads: boolean;
  /** Environment the engines read their overrides from (B.16); default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Shared discovery budget in seconds (B.9, default 5). */
  discoveryTimeoutS?: number;
  /** How long remote discovery answers are remembered, in seconds (B.9, at least 300). */
  discoveryTtlS?: number;
  /** Largest remote audio answer in bytes (default 64 MiB). */
  remoteMaxAudioBytes?: number;
  /** Largest remote JSON answer in bytes (default 4 MiB). */
  remoteMaxJsonBytes?: number;
  /** The speech model requested (remote `model`), when the manager has one. */
  ttsModel?: string;
  /** The recognition model requested, when the manager has one. */
  sttModel?: string;
}

/** Makes an engine by id; the manager holds one factory per engine id it knows. */
export interface TtsEngineFactory {
  readonly id: string;
  create(settings: EngineSettings): TtsEngine;
}

export interface SpeechToTextEngineFactory {
  readonly id: string;
  create(settings: EngineSettings): SpeechToTextEngine;
}

/** Last-utterance metrics (reference B.10). */
export interface UtteranceMetrics {
  engine: string;
  ttfb_s: number;
  synth_s: number;
  audio_s: number;
  rtf: number;
  chunks: number;
  segments: number;
  segment_max_chars: number;
  first_segment_max_chars: number;
  device?: string;
  device_reason?: string;
  /** The fields below appear where reference B.10 lists them for the path taken. */
  streaming?: boolean;
  cancelled?: boolean;
  format?: AudioFormat;
  language?: string;
  speed?: number;
  /** Seconds since the epoch when the utterance finished. */
  ts?: number;
  request_contract?: 'speech_request_v1';
  sample_rate?: number;
  channels?: number;
  audio_frames?: number;
  profile_id?: string;
  profile_label?: string;
  voice_id?: string;
  clone_engine?: string;
}

/** The error every voice call throws for bad input or a missing runtime; the plugin maps `status`. */
export class VoiceError extends Error {
  constructor(
    message: string,
    /** 400 bad input, 404 unknown voice, 501 no engine/runtime, 502 remote failure, 503 busy. */
    readonly status: number,
    readonly code: string,
    readonly install?: string,
  ) {
    super(message);
    this.name = 'VoiceError';
  }
}
