/**
 * The owner settings a voice manager is built from (reference B.13): each `voice_*` key of the
 * config wins over its environment variable, which wins over Keel's default. Booleans read
 * `1/true/yes/y/on` and `0/false/no/n/off`; anything else is the default (so `"false"` is false).
 *
 * Keel's defaults differ from the reference's remote-first ones on purpose: speech uses the local
 * `espeak` engine and recognition the local `pocketsphinx` engine, so a fresh Keel answers
 * `/v1/audio/speech` offline, with no key and no network; and downloads are off, because no Keel
 * engine downloads anything at run time (house rule). `hosted` and `compatible` are one key away.
 */
import type { VoiceConfig, LooseBoolean } from './config.js';

export type DeliveryMode = 'buffered' | 'streamed';

/** What one voice manager is built from; two equal settings share one manager (`settingsKey`). */
export interface OwnerSettings {
  language: string;
  allowDownloads: boolean;
  ttsEngine: string;
  sttEngine: string;
  whisperModel: string;
  ttsModel: string | null;
  sttModel: string | null;
  cloningEngine: string;
  cloningModel: string | null;
  remoteBaseUrl: string | null;
  remoteApiKey: string | null;
  remoteTimeoutS: number;
  hostedApiKey: string | null;
  hostedBaseUrl: string | null;
  clonedTtsStreaming: boolean;
  deliveryMode: DeliveryMode | null;
  debugMode: boolean;
  codebookPredictor: 'auto' | 'reference';
  codebookSampler: 'multinomial' | 'exponential';
}

export const KEEL_VOICE_DEFAULTS = {
  language: 'en',
  allowDownloads: false,
  ttsEngine: 'espeak',
  sttEngine: 'pocketsphinx',
  whisperModel: 'base',
  // No local cloning engine runs here: clones go to a compatible endpoint (`voice_remote_base_url`).
  cloningEngine: 'compatible',
  remoteTimeoutS: 60,
  clonedTtsStreaming: true,
} as const;

const TRUE = new Set(['1', 'true', 'yes', 'y', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'n', 'off']);

/** Reference B.13's boolean reading: a recognised word, else `fallback`. */
export function readBoolean(value: LooseBoolean | undefined, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === undefined || value === null) return fallback;
  const word = String(value).trim().toLowerCase();
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  return fallback;
}

/**
 * Reference B.5's delivery-mode normalisation. Unlike a manager call, an owner value that is not a
 * mode falls back to "no override" rather than failing the boot.
 */
export function readDeliveryMode(value: unknown): DeliveryMode | null {
  if (typeof value === 'boolean') return value ? 'streamed' : 'buffered';
  if (typeof value !== 'string') return null;
  const word = value.trim().toLowerCase();
  if (['buffered', 'full', 'wav', 'file', 'off', 'false', '0'].includes(word)) return 'buffered';
  if (['streamed', 'stream', 'chunks', 'chunked', 'on', 'true', '1'].includes(word)) return 'streamed';
  return null;
}

/** A positive number of seconds, else null (reference B.1: values ≤ 0 fall back to 60). */
function readSeconds(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}

type Env = Record<string, string | undefined>;

/** The first of `names` set to a non-empty value in `env`. */
function fromEnv(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

const REMOTE_ENGINES = new Set(['compatible', 'remote', 'proxy', 'openai-compatible']);
const HOSTED_ENGINES = new Set(['hosted', 'auto', 'openai']);

/**
 * A model variable of the engine in use: `VOICE_<KIND>_MODEL` always, the hosted ones only for the
 * hosted engine and the remote ones only for a compatible engine (the reference tries them all in
 * turn; Keel does not hand a hosted model id to a local engine).
 */
function modelFromEnv(env: Env, kind: 'TTS' | 'STT', engine: string): string | undefined {
  const names = [`VOICE_${kind}_MODEL`];
  if (HOSTED_ENGINES.has(engine)) names.push(`VOICE_HOSTED_${kind}_MODEL`);
  if (REMOTE_ENGINES.has(engine)) names.push(`VOICE_COMPATIBLE_${kind}_MODEL`, `VOICE_REMOTE_${kind}_MODEL`);
  return fromEnv(env, ...names);
}

/** The settings `config` and `env` give (reference B.13 order: config, then env, then default). */
export function resolveOwnerSettings(config: Omit<VoiceConfig, 'limits' | 'engines' | 'web'>, env: Env): OwnerSettings {
  const ttsEngine = (nonEmpty(config.voice_tts_engine) ?? fromEnv(env, 'VOICE_TTS_ENGINE') ?? KEEL_VOICE_DEFAULTS.ttsEngine).toLowerCase();
  const sttEngine = (nonEmpty(config.voice_stt_engine) ?? fromEnv(env, 'VOICE_STT_ENGINE') ?? KEEL_VOICE_DEFAULTS.sttEngine).toLowerCase();
  const clonedTtsStreaming = readBoolean(config.voice_cloned_tts_streaming ?? fromEnv(env, 'VOICE_CLONED_TTS_STREAMING'), KEEL_VOICE_DEFAULTS.clonedTtsStreaming);
  // The explicit mode wins over the streaming alias (reference B.13).
  const explicitMode = readDeliveryMode(config.voice_tts_delivery_mode ?? fromEnv(env, 'VOICE_TTS_DELIVERY_MODE'));
  const streamingAlias = config.voice_tts_streaming === undefined ? null : readBoolean(config.voice_tts_streaming, false) ? 'streamed' : 'buffered';
  return {
    language: (nonEmpty(config.voice_language) ?? fromEnv(env, 'VOICE_LANGUAGE') ?? KEEL_VOICE_DEFAULTS.language).toLowerCase(),
    allowDownloads: readBoolean(config.voice_allow_downloads ?? fromEnv(env, 'VOICE_ALLOW_DOWNLOADS'), KEEL_VOICE_DEFAULTS.allowDownloads),
    ttsEngine,
    sttEngine,
    whisperModel: nonEmpty(config.voice_whisper_model) ?? fromEnv(env, 'VOICE_WHISPER_MODEL') ?? KEEL_VOICE_DEFAULTS.whisperModel,
    ttsModel: nonEmpty(config.voice_tts_model) ?? modelFromEnv(env, 'TTS', ttsEngine) ?? null,
    sttModel: nonEmpty(config.voice_stt_model) ?? modelFromEnv(env, 'STT', sttEngine) ?? null,
    cloningEngine: (nonEmpty(config.voice_cloning_engine) ?? fromEnv(env, 'VOICE_CLONING_ENGINE') ?? KEEL_VOICE_DEFAULTS.cloningEngine).toLowerCase(),
    // Deliberately no environment variable (reference B.13).
    cloningModel: nonEmpty(config.voice_cloning_model) ?? null,
    remoteBaseUrl: nonEmpty(config.voice_remote_base_url) ?? fromEnv(env, 'HOSTED_BASE_URL') ?? null,
    // No environment fallback here: the engines read the key variable themselves (reference B.13).
    remoteApiKey: nonEmpty(config.voice_remote_api_key) ?? null,
    remoteTimeoutS:
      readSeconds(config.voice_remote_timeout_s) ??
      readSeconds(fromEnv(env, 'VOICE_REMOTE_TIMEOUT_S', 'VOICE_HOSTED_TIMEOUT_S', 'VOICE_COMPATIBLE_TIMEOUT_S')) ??
      KEEL_VOICE_DEFAULTS.remoteTimeoutS,
    hostedApiKey: nonEmpty(config.voice_openai_api_key) ?? fromEnv(env, 'HOSTED_API_KEY') ?? null,
    hostedBaseUrl: nonEmpty(config.voice_openai_base_url) ?? fromEnv(env, 'HOSTED_BASE_URL') ?? null,
    clonedTtsStreaming: explicitMode ? explicitMode === 'streamed' : clonedTtsStreaming,
    deliveryMode: explicitMode ?? streamingAlias,
    debugMode: readBoolean(config.voice_debug_mode ?? fromEnv(env, 'VOICE_DEBUG'), false),
    codebookPredictor: config.voice_codebook_predictor ?? 'auto',
    codebookSampler: config.voice_codebook_sampler ?? 'multinomial',
  };
}

/** The cache key of a manager: every setting, in a fixed order (reference B.13 "Manager cache"). */
export function settingsKey(settings: OwnerSettings): string {
  return JSON.stringify(Object.keys(settings).sort().map((k) => [k, settings[k as keyof OwnerSettings]]));
}

/** The settings safe to show a client (`GET` routes, logs): keys are reported as configured or not. */
export function publicSettings(settings: OwnerSettings): Record<string, unknown> {
  const { remoteApiKey, hostedApiKey, ...rest } = settings;
  return { ...rest, remoteApiKeyConfigured: remoteApiKey !== null, hostedApiKeyConfigured: hostedApiKey !== null };
}
