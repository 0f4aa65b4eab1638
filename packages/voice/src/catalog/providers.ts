/**
 * Which providers exist here and which of them can run (reference B.7 "When each provider is
 * listed"), from what is configured: the remote endpoints in the settings and the local engines
 * the manager was given. Nothing is probed over the network here and nothing throws: a provider
 * that cannot run is listed under `unavailable` with a code and a sentence.
 */
import type { EngineAvailability, EngineSettings, SpeechToTextEngine, TtsEngine } from '../contracts.js';
import { DEFAULT_LOCAL_ANSWER_TIMEOUT_MS, withinMs, type Env } from './discovery-settings.js';
import type { RemoteEndpoint } from './remote-http.js';
import { sortProviders, type ProviderKind } from './provider-ids.js';

export const HOSTED_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** What the manager has selected now (read at every listing: the manager's state changes). */
export interface ActiveSelection {
  ttsProvider: string | null;
  sttProvider: string | null;
  cloningProvider?: string | null;
  ttsModel?: string | null;
  sttModel?: string | null;
  /** The active TTS profile id (null: the engine's default). */
  profile?: string | null;
}

export type UnavailableCode = 'runtime_missing' | 'model_not_downloaded' | 'not_configured';

/** The engine runtime status a `runtime_missing` record carries (seed §2B). */
export interface RuntimeStatus {
  installed: boolean;
  missing_modules: string[];
  extra: string | null;
  install_command: string | null;
  reason: string;
}

export interface UnavailableRecord {
  code: UnavailableCode;
  reason: string;
  runtime?: RuntimeStatus;
}

export interface ProviderDetail {
  id: string;
  provider: string;
  kind: ProviderKind;
  remote: boolean;
  local: boolean;
  /** Local engines: whether the runtime is installed; remote providers: null (nothing to install). */
  installed: boolean | null;
}

/** One configured provider, with what the catalog needs to ask it. */
export interface ProviderHandle {
  detail: ProviderDetail;
  endpoint?: RemoteEndpoint;
  tts?: TtsEngine;
  stt?: SpeechToTextEngine;
}

export interface ProviderState {
  available: Record<ProviderKind, ProviderHandle[]>;
  known: Record<ProviderKind, string[]>;
  unavailable: Record<ProviderKind, Record<string, UnavailableRecord>>;
}

export interface ProviderSources {
  settings: Partial<EngineSettings>;
  ttsEngines: readonly TtsEngine[];
  sttEngines: readonly SpeechToTextEngine[];
  env: Env;
  active: ActiveSelection;
  /** Bound on each local engine's availability check (default 30 s). */
  localTimeoutMs?: number;
}

/** Keel ships no local cloning engine; this is what a listing and a local clone request say. */
export const LOCAL_CLONING_UNAVAILABLE: UnavailableRecord = {
  code: 'runtime_missing',
  reason:
    'Keel ships no local voice-cloning engine. Clone through a compatible endpoint (set remote_base_url to a server with POST /voice/clone) or through the hosted provider (set VOICE_HOSTED_VOICE_CONSENT_ID).',
  runtime: {
    installed: false,
    missing_modules: [],
    extra: null,
    install_command: null,
    reason: 'No local voice-cloning engine exists for Keel.',
  },
};

export const HOSTED_CONSENT_MISSING =
  'Hosted custom voice creation requires consent. Set VOICE_HOSTED_VOICE_CONSENT_ID to the consent id recorded with the hosted provider, or clone through a compatible endpoint (remote_base_url with POST /voice/clone).';

/** The hosted endpoint, when a key is configured (reference B.7: the env key, or a remote key with no other base URL). */
export function hostedEndpoint(settings: Partial<EngineSettings>, env: Env): RemoteEndpoint | null {
  const baseUrl = settings.hostedBaseUrl || env.HOSTED_BASE_URL || HOSTED_DEFAULT_BASE_URL;
  const key = settings.hostedApiKey || env.HOSTED_API_KEY;
  if (key) return { baseUrl, apiKey: key };
  if (settings.remoteApiKey && (!settings.remoteBaseUrl || isHostedUrl(settings.remoteBaseUrl))) return { baseUrl, apiKey: settings.remoteApiKey };
  return null;
}

/**
 * The compatible endpoint, when a base URL other than the hosted service's is configured
 * (`remote_base_url`, else HOSTED_BASE_URL: reference B.13); its key is optional.
 */
export function compatibleEndpoint(settings: Partial<EngineSettings>, env: Env = {}): RemoteEndpoint | null {
  const baseUrl = settings.remoteBaseUrl || env.HOSTED_BASE_URL;
  if (!baseUrl || isHostedUrl(baseUrl)) return null;
  const apiKey = settings.remoteApiKey || env.HOSTED_API_KEY;
  return apiKey ? { baseUrl, apiKey } : { baseUrl };
}

/** The consent id hosted voice creation needs (seed §5), or null. */
export function hostedConsentId(env: Env): string | null {
  const id = env.VOICE_HOSTED_VOICE_CONSENT_ID?.trim();
  return id ? id : null;
}

export async function resolveProviders(sources: ProviderSources): Promise<ProviderState> {
  const { settings, env } = sources;
  const state: ProviderState = {
    available: { tts: [], stt: [], cloning: [] },
    known: { tts: ['hosted', 'compatible'], stt: ['hosted', 'compatible'], cloning: ['hosted', 'compatible'] },
    unavailable: { tts: {}, stt: {}, cloning: {} },
  };
  const hosted = hostedEndpoint(settings, env);
  const compatible = compatibleEndpoint(settings, env);
  const remote = (id: string, kind: ProviderKind, endpoint: RemoteEndpoint): ProviderHandle => ({
    detail: { id, provider: id, kind, remote: true, local: false, installed: null },
    endpoint,
  });
  for (const kind of ['tts', 'stt'] as const) {
    if (hosted) state.available[kind].push(remote('hosted', kind, hosted));
    else state.unavailable[kind].hosted = { code: 'not_configured', reason: 'The hosted provider needs an API key: set HOSTED_API_KEY (or remote_api_key with no other remote_base_url).' };
    if (compatible) state.available[kind].push(remote('compatible', kind, compatible));
    else state.unavailable[kind].compatible = { code: 'not_configured', reason: 'The compatible provider needs the base URL of an OpenAI-shaped server: set remote_base_url.' };
  }
  if (hosted && (hostedConsentId(env) || env.VOICE_HOSTED_VOICE_CREATE_PATH)) state.available.cloning.push(remote('hosted', 'cloning', hosted));
  else state.unavailable.cloning.hosted = hosted ? { code: 'not_configured', reason: HOSTED_CONSENT_MISSING } : { code: 'not_configured', reason: 'Hosted voice cloning needs the hosted provider (HOSTED_API_KEY) and VOICE_HOSTED_VOICE_CONSENT_ID.' };
  if (compatible) state.available.cloning.push(remote('compatible', 'cloning', compatible));
  else state.unavailable.cloning.compatible = { code: 'not_configured', reason: 'Cloning through a compatible endpoint needs remote_base_url (a server with POST /voice/clone).' };
  state.unavailable.cloning.local = structuredClone(LOCAL_CLONING_UNAVAILABLE);

  await Promise.all([
    ...sources.ttsEngines.filter((e) => e.kind === 'local').map(async (engine) => addLocal(state, 'tts', engine.id, await safeAvailability(engine, sources.localTimeoutMs), { tts: engine })),
    ...sources.sttEngines.filter((e) => e.kind === 'local').map(async (engine) => addLocal(state, 'stt', engine.id, await safeAvailability(engine, sources.localTimeoutMs), { stt: engine })),
  ]);
  for (const kind of ['tts', 'stt', 'cloning'] as const) {
    const order = sortProviders(kind, state.available[kind].map((h) => h.detail.id));
    state.available[kind].sort((a, b) => order.indexOf(a.detail.id) - order.indexOf(b.detail.id));
    state.known[kind] = sortProviders(kind, [...state.known[kind], ...state.available[kind].map((h) => h.detail.id), ...Object.keys(state.unavailable[kind]).filter((id) => id !== 'local')]);
  }
  return state;
}

function addLocal(state: ProviderState, kind: 'tts' | 'stt', id: string, availability: EngineAvailability, engine: Pick<ProviderHandle, 'tts' | 'stt'>): void {
  const detail: ProviderDetail = { id, provider: id, kind, remote: false, local: true, installed: availability.available || availability.code !== 'runtime_missing' };
  if (availability.available) {
    state.available[kind].push({ detail, ...engine });
    return;
  }
  const code: UnavailableCode = availability.code === 'runtime_missing' ? 'runtime_missing' : 'not_configured';
  const record: UnavailableRecord = { code, reason: availability.reason };
  if (code === 'runtime_missing') {
    record.runtime = { installed: false, missing_modules: [], extra: null, install_command: availability.install ?? null, reason: availability.reason };
  }
  state.unavailable[kind][id] = record;
  state.known[kind].push(id);
}

/** An engine whose availability check itself fails is unavailable, with the failure as its reason. */
async function safeAvailability(engine: TtsEngine | SpeechToTextEngine, timeoutMs = DEFAULT_LOCAL_ANSWER_TIMEOUT_MS): Promise<EngineAvailability> {
  try {
    return await withinMs(engine.availability(), timeoutMs, `the ${engine.id} engine's availability check`);
  } catch (err) {
    return { available: false, code: 'runtime_missing', reason: `The ${engine.id} engine could not check its runtime: ${(err as Error).message}` };
  }
}

function isHostedUrl(url: string): boolean {
  try {
    return new URL(url).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}
