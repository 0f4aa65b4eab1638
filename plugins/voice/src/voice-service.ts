/**
 * What the voice plugin offers its routes, its node types and other plugins (`voice.service`):
 * speech, transcription, discovery and cloning for one account, each bounded by the plugin's
 * limits (input size, concurrency per process and per account, a deadline). Built over the voice
 * managers of `@keel/voice`, one per configuration (reference B.13).
 */
import type { AudioFormat, AudioInput, CapabilitySupport, CompatibilityCatalog, CompatibleModel, PcmAudio } from '@keel/voice';
import type { ResidentEntry, ResidentRequest } from './resident-models.js';
import type { TtsStreamEvent } from './tts-stream.js';

export interface SpeechInput {
  text: string;
  /** A profile id of the provider, or a cloned voice id (reference B.14). */
  voice?: string;
  /** Default `wav`. */
  format?: AudioFormat;
  /** 0.5 – 2.0; absent means the manager's speed. */
  speed?: number;
  instructions?: string;
  /** A model, or `provider:model` (reference B.7 "Provider selectors"). */
  model?: string;
  provider?: string;
  language?: string;
  /** Strip markdown before speaking (reference B.2 `sanitize_syntax`; default true). */
  sanitizeSyntax?: boolean;
  signal?: AbortSignal;
}

export interface SpeechOutput {
  bytes: Buffer;
  format: AudioFormat;
  contentType: string;
  /** The engine that spoke (`espeak`, `compatible`, ...). */
  provider: string;
  model: string | null;
  /** The last-utterance metrics of reference B.10, when the manager recorded them. */
  metrics: Record<string, unknown> | null;
}

export interface TranscriptionInput {
  audio: AudioInput;
  language?: string;
  /** A model, or `provider:model`. */
  model?: string;
  provider?: string;
  /** Free text for remote engines; the phrase grammar of the local pocketsphinx engine. */
  prompt?: string;
  signal?: AbortSignal;
}

export interface TranscriptionOutput {
  text: string;
  language: string;
  provider: string;
  model: string | null;
}

export interface CloneInput {
  audio: AudioInput;
  name?: string;
  reference_text?: string;
  /** A cloning model, or `provider:model`; the provider is a cloning engine id. */
  model?: string;
  provider?: string;
  signal?: AbortSignal;
}

/** A stored cloned voice (reference B.11 record, plus the `id` alias the route answers). */
export type ClonedVoice = { voice_id: string; name: string; engine: string } & Record<string, unknown>;

export interface CatalogFilter {
  provider?: string;
  model?: string;
}

export interface VoiceService {
  /** Speaks `text` into encoded audio (the whole file: `speak_to_bytes`). */
  speak(account: string, input: SpeechInput): Promise<SpeechOutput>;
  /**
   * Speaks `text` segment by segment (the first segment one sentence or clause of at most 60
   * characters, later ones whole sentences up to 240): `onChunk` gets each segment's samples as soon
   * as it is synthesised, in order. The slot is held until the last one is handled.
   */
  speakStream(account: string, input: Omit<SpeechInput, 'format'>, onChunk: (chunk: PcmAudio) => Promise<void>): Promise<{ provider: string; model: string | null }>;
  /**
   * The integration plugin's `tts_stream` (reference B.13): one `audio` event per segment (a complete
   * WAV), then `done`, or `cancelled` when `input.signal` aborted it. Only `wav`; no instructions.
   */
  ttsStream(account: string, input: SpeechInput): AsyncGenerator<TtsStreamEvent>;
  /** Transcribes one audio file (`transcribe_from_bytes`). */
  transcribe(account: string, input: TranscriptionInput): Promise<TranscriptionOutput>;
  /**
   * `transcribe` of an upload: the slot is taken before `read` reads the body (with the call's
   * signal, so a slow upload meets the deadline), so at most `maxConcurrentTranscriptions` uploads
   * are held in memory at once.
   */
  transcribeUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<TranscriptionInput>): Promise<TranscriptionOutput>;
  /** Stores a cloned voice made from one reference recording (`clone`, reference B.13). */
  clone(account: string, input: CloneInput): Promise<ClonedVoice>;
  /** `clone` of an upload (as `transcribeUpload`). */
  cloneUpload(account: string, signal: AbortSignal, read: (signal: AbortSignal) => Promise<CloneInput>): Promise<ClonedVoice>;
  /**
   * Speaks a short sentence with a freshly cloned voice; when that fails, removes the voice and
   * throws the sentence that says so (reference B.15 `validate`). Answers what it measured.
   */
  validateClone(account: string, voiceId: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** The voice catalog of reference B.7 (`voice_catalog`), filtered; never throws for a provider that cannot answer. */
  voiceCatalog(account: string, filter: CatalogFilter): Promise<Record<string, unknown>>;
  /** `available_providers()` of reference B.7. */
  availableProviders(account: string): Promise<Record<string, unknown>>;
  /**
   * Residency (reference B.9 "Residency (plugin)"): loads, unloads and lists the local engines'
   * resident models; a remote provider answers `state: "configured"` with `not_supported`. Refusals
   * are entries with an `error`, never exceptions.
   */
  loadResidentModel(request: ResidentRequest): Promise<ResidentEntry>;
  unloadResidentModel(request: ResidentRequest): Promise<ResidentEntry>;
  listResidentModels(): Promise<ResidentEntry[]>;
  /**
   * Capability support (reference B.8), from the data every manager checks requests against:
   * `{support, reason, metadata}` or null; surface `default` is the kind's first.
   */
  getCapabilitySupport(kind: string, feature: string, provider: string, model?: string | null, surface?: string): CapabilitySupport | null;
  findCompatibleModels(kind: string, feature: string, surface?: string, supportIn?: readonly string[]): CompatibleModel[];
  compatibilityCatalog(): CompatibilityCatalog;
  /** Model ids of one kind (`list_models`), per provider. */
  models(account: string, kind: 'tts' | 'stt', filter: CatalogFilter): Promise<Record<string, unknown>>;
}
