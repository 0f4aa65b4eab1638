/**
 * How the remote engines find their endpoint, key, timeouts and defaults (reference B.1, B.3, B.9, B.16;
 * the `OPENAI_*` names of the reference are `HOSTED_*` here, the `ABSTRACTVOICE_*` names `VOICE_*`).
 */
import { VoiceError, type EngineSettings } from '../contracts.js';

export const HOSTED_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const HOSTED_DEFAULT_TTS_MODEL = 'gpt-4o-mini-tts';
export const HOSTED_DEFAULT_STT_MODEL = 'gpt-4o-mini-transcribe';
export const HOSTED_DEFAULT_VOICE = 'alloy';
export const HOSTED_TTS_MODELS: readonly string[] = ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd'];
export const HOSTED_STT_MODELS: readonly string[] = ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'whisper-1'];
export const HOSTED_BUILTIN_VOICES: readonly string[] = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse'];

export const DEFAULT_REMOTE_TIMEOUT_S = 60;
export const DEFAULT_DISCOVERY_TIMEOUT_S = 5;
export const MIN_DISCOVERY_TTL_S = 300;
/** Largest audio answer accepted from a remote (speech); a setting, this is the default. */
export const DEFAULT_REMOTE_MAX_AUDIO_BYTES = 64 * 1024 * 1024;
/** Largest JSON answer accepted (transcripts, voice and model lists, clone answers). */
export const DEFAULT_REMOTE_MAX_JSON_BYTES = 4 * 1024 * 1024;

export const HOSTED_KEY_MISSING = 'Hosted audio requires HOSTED_API_KEY or remote_api_key=...';
export const COMPATIBLE_URL_MISSING = 'Missing remote audio base URL. Set `remote_base_url=...` or HOSTED_BASE_URL.';

export type Env = Record<string, string | undefined>;

/** Everything a remote engine needs, resolved once when the engine is built. */
export interface RemoteEndpoint {
  provider: 'hosted' | 'compatible';
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  discoveryTimeoutMs: number;
  discoveryTtlMs: number;
  maxAudioBytes: number;
  maxJsonBytes: number;
  env: Env;
}

/**
 * The hosted endpoint: base `hostedBaseUrl`, else HOSTED_BASE_URL, else the official root; key
 * `hostedApiKey`, else HOSTED_API_KEY, else `remoteApiKey`. Without a key: VoiceError 501 with the B.1 sentence.
 */
export function hostedEndpoint(settings: EngineSettings): RemoteEndpoint {
  const env = settings.env ?? process.env;
  const apiKey = nonEmpty(settings.hostedApiKey) ?? nonEmpty(env.HOSTED_API_KEY) ?? nonEmpty(settings.remoteApiKey);
  if (!apiKey) throw new VoiceError(HOSTED_KEY_MISSING, 501, 'not_configured');
  const baseUrl = nonEmpty(settings.hostedBaseUrl) ?? nonEmpty(env.HOSTED_BASE_URL) ?? HOSTED_DEFAULT_BASE_URL;
  return common('hosted', baseUrl, apiKey, settings, env);
}

/**
 * The compatible endpoint: base `remoteBaseUrl`, else HOSTED_BASE_URL (required: the B.1 sentence);
 * key `remoteApiKey`, else HOSTED_API_KEY when set (optional). The hosted-only `hostedApiKey` setting is
 * never sent here.
 */
export function compatibleEndpoint(settings: EngineSettings): RemoteEndpoint {
  const env = settings.env ?? process.env;
  const baseUrl = nonEmpty(settings.remoteBaseUrl) ?? nonEmpty(env.HOSTED_BASE_URL);
  if (!baseUrl) throw new VoiceError(COMPATIBLE_URL_MISSING, 501, 'not_configured');
  const apiKey = nonEmpty(settings.remoteApiKey) ?? nonEmpty(env.HOSTED_API_KEY);
  return common('compatible', baseUrl, apiKey, settings, env);
}

function common(provider: 'hosted' | 'compatible', baseUrl: string, apiKey: string | undefined, settings: EngineSettings, env: Env): RemoteEndpoint {
  const timeoutS = remoteTimeoutS(settings.remoteTimeoutS, env);
  const discoveryS = discoveryTimeoutS(settings.discoveryTimeoutS, env);
  return {
    provider,
    baseUrl,
    apiKey,
    timeoutMs: timeoutS * 1000,
    // A probe's socket timeout is the smaller of the discovery budget and the remote timeout (B.9).
    discoveryTimeoutMs: Math.min(discoveryS, timeoutS) * 1000,
    discoveryTtlMs: discoveryTtlS(settings.discoveryTtlS, env) * 1000,
    maxAudioBytes: positiveInt(settings.remoteMaxAudioBytes) ?? DEFAULT_REMOTE_MAX_AUDIO_BYTES,
    maxJsonBytes: positiveInt(settings.remoteMaxJsonBytes) ?? DEFAULT_REMOTE_MAX_JSON_BYTES,
    env,
  };
}

/**
 * The remote timeout: the setting when > 0, else the first of VOICE_REMOTE_TIMEOUT_S and its aliases
 * VOICE_HOSTED_TIMEOUT_S, VOICE_COMPATIBLE_TIMEOUT_S (B.16) that is set; a value ≤0 or non-numeric
 * gives 60.
 */
export function remoteTimeoutS(value: number | undefined, env: Env): number {
  if (value !== undefined && Number.isFinite(value) && value > 0) return value;
  const raw = [env.VOICE_REMOTE_TIMEOUT_S, env.VOICE_HOSTED_TIMEOUT_S, env.VOICE_COMPATIBLE_TIMEOUT_S].find((v) => v !== undefined && v.trim() !== '');
  const n = Number(raw);
  return raw !== undefined && Number.isFinite(n) && n > 0 ? n : DEFAULT_REMOTE_TIMEOUT_S;
}

/** The discovery budget: the setting, else VOICE_DISCOVERY_TIMEOUT_S, else 5; a value ≤0 is ignored. */
export function discoveryTimeoutS(value: number | undefined, env: Env): number {
  for (const candidate of [value, env.VOICE_DISCOVERY_TIMEOUT_S]) {
    const n = Number(candidate);
    if (candidate !== undefined && candidate !== '' && Number.isFinite(n) && n > 0) return n;
  }
  return DEFAULT_DISCOVERY_TIMEOUT_S;
}

/** The discovery TTL: at least 300 s; lower, non-numeric and non-finite values give 300. */
export function discoveryTtlS(value: number | undefined, env: Env): number {
  const candidate = value ?? env.VOICE_REMOTE_DISCOVERY_TTL_S;
  const n = Number(candidate);
  return candidate !== undefined && candidate !== '' && Number.isFinite(n) && n >= MIN_DISCOVERY_TTL_S ? n : MIN_DISCOVERY_TTL_S;
}

/** A comma-separated env list, trimmed, empties dropped. */
export function envList(env: Env, ...names: string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    for (const item of (env[name] ?? '').split(',')) {
      const trimmed = item.trim();
      if (trimmed && !out.includes(trimmed)) out.push(trimmed);
    }
  }
  return out;
}

export function nonEmpty(value: string | undefined | null): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function positiveInt(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined;
}
