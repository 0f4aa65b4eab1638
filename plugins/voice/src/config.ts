/**
 * The voice plugin's config: the owner keys of reference B.13 (`voice_*`, each falling back to its
 * environment variable, then to Keel's default; see `owner-settings.ts`) and Keel's own limits
 * (`limits`), every one with a safe default. Owner values arrive as a config file writes them: a
 * boolean may be `true` or `"on"`, a timeout `30` or `"30"`; `owner-settings.ts` reads them.
 */
import { webConfigJson, type WebConfig } from './web/web-config.js';
import { defineSchemaFor } from '@keel/plugin-sdk';

/** A boolean owner key as written: `true`, `"yes"`, `1` (reference B.13: anything else is the default). */
export type LooseBoolean = boolean | string | number;

export interface VoiceLimits {
  /** Most characters of text one synthesis may speak (400 beyond; OpenAI's own limit is 4096). */
  maxInputChars: number;
  /** Largest audio file one transcription or clone upload may carry (413 beyond; read no further). */
  maxUploadBytes: number;
  /** Largest text form field of an upload (`prompt`, `reference_text`, ...). */
  maxFieldBytes: number;
  /** Syntheses running at once in this process (503 with Retry-After beyond). */
  maxConcurrentSyntheses: number;
  /** Transcriptions (and clones) running at once in this process (503 with Retry-After beyond). */
  maxConcurrentTranscriptions: number;
  /** Syntheses, transcriptions and clones one account may have running at once (429 with Retry-After beyond). */
  maxConcurrentPerAccount: number;
  /** Longest one synthesis, transcription or clone may run before it is stopped (504). */
  requestTimeoutMs: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfterSeconds: number;
  /** Most managers (one per distinct configuration, reference B.13) kept at once; the oldest unused is closed. */
  maxCachedManagers: number;
}

/** Options of the local engines (each engine's README says more). */
export interface LocalEngineConfig {
  espeak: {
    /** Worker threads synthesising at once. */
    maxThreads: number;
  };
  pocketsphinx: {
    /** The recognizer binary (Debian: `/usr/bin/pocketsphinx_continuous`). */
    binary?: string;
    /** The acoustic model folder (Debian `pocketsphinx-en-us`: `/usr/share/pocketsphinx/model/en-us`). */
    modelDir?: string;
    /** Recognizer processes at once. */
    maxConcurrent: number;
  };
}

export interface VoiceConfig {
  voice_language?: string;
  voice_allow_downloads?: LooseBoolean;
  voice_tts_engine?: string;
  voice_stt_engine?: string;
  voice_whisper_model?: string;
  voice_tts_model?: string;
  voice_stt_model?: string;
  voice_cloning_engine?: string;
  voice_cloning_model?: string;
  voice_remote_base_url?: string;
  voice_remote_api_key?: string;
  voice_remote_timeout_s?: number | string;
  /** Hosted provider only; never sent to `voice_remote_base_url`. */
  voice_openai_api_key?: string;
  voice_openai_base_url?: string;
  voice_cloned_tts_streaming?: LooseBoolean;
  /** `buffered` or `streamed` (and their aliases); wins over `voice_cloned_tts_streaming`. */
  voice_tts_delivery_mode?: string;
  /** Boolean alias of the delivery mode: true is `streamed`. */
  voice_tts_streaming?: LooseBoolean;
  voice_debug_mode?: LooseBoolean;
  /** Codebook settings of an instruction-capable engine (reference `qwen3_tts_predictor`, `_sampler`). */
  voice_codebook_predictor?: 'auto' | 'reference';
  voice_codebook_sampler?: 'multinomial' | 'exponential';
  limits: VoiceLimits;
  engines: LocalEngineConfig;
  /** The web example's routes and page (`web/web-config.ts`). */
  web: WebConfig;
}

const looseBoolean = { type: ['boolean', 'string', 'number'] } as const;
const text = { type: 'string', maxLength: 2048 } as const;

export const voiceConfigSchema = defineSchemaFor<VoiceConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    voice_language: text,
    voice_allow_downloads: looseBoolean,
    voice_tts_engine: text,
    voice_stt_engine: text,
    voice_whisper_model: text,
    voice_tts_model: text,
    voice_stt_model: text,
    voice_cloning_engine: text,
    voice_cloning_model: text,
    voice_remote_base_url: text,
    voice_remote_api_key: text,
    voice_remote_timeout_s: { type: ['number', 'string'] },
    voice_openai_api_key: text,
    voice_openai_base_url: text,
    voice_cloned_tts_streaming: looseBoolean,
    voice_tts_delivery_mode: text,
    voice_tts_streaming: looseBoolean,
    voice_debug_mode: looseBoolean,
    // A typo here fails at boot, before any manager is built (reference B.13).
    voice_codebook_predictor: { type: 'string', enum: ['auto', 'reference'] },
    voice_codebook_sampler: { type: 'string', enum: ['multinomial', 'exponential'] },
    web: webConfigJson,
    engines: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        espeak: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: { maxThreads: { type: 'integer', minimum: 1, maximum: 16, default: 1 } },
        },
        pocketsphinx: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            binary: { type: 'string', minLength: 1, maxLength: 1024 },
            modelDir: { type: 'string', minLength: 1, maxLength: 1024 },
            maxConcurrent: { type: 'integer', minimum: 1, maximum: 16, default: 2 },
          },
        },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxInputChars: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 4096 },
        maxUploadBytes: { type: 'integer', minimum: 1024, maximum: 1024 * 1024 * 1024, default: 25 * 1024 * 1024 },
        maxFieldBytes: { type: 'integer', minimum: 64, maximum: 1024 * 1024, default: 16 * 1024 },
        maxConcurrentSyntheses: { type: 'integer', minimum: 1, maximum: 256, default: 4 },
        maxConcurrentTranscriptions: { type: 'integer', minimum: 1, maximum: 256, default: 2 },
        maxConcurrentPerAccount: { type: 'integer', minimum: 1, maximum: 256, default: 2 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000, default: 120_000 },
        retryAfterSeconds: { type: 'integer', minimum: 1, maximum: 3600, default: 1 },
        maxCachedManagers: { type: 'integer', minimum: 1, maximum: 64, default: 8 },
      },
    },
  },
});
