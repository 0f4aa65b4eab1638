/**
 * The per-provider entries of the catalog (reference B.7): what one TTS or STT provider offers —
 * models, variants, voices, profiles, clones, formats — built from its remote's answer (merged with
 * what the provider is known to have without asking) or from its local engine's contract.
 */
import type { SpeechToTextEngine, TtsEngine, VoiceProfile } from '../contracts.js';
import type { ClonedVoiceRecord } from '../cloning/voice-record.js';
import { withinMs, type Env } from './discovery-settings.js';
import type { ActiveSelection, ProviderDetail, ProviderHandle, UnavailableRecord } from './providers.js';
import { cloneEntry, profileEntry, remoteVoiceEntry, type VoiceEntry } from './records.js';
import type { RemoteAnswer } from './remote-probe.js';

/** The request contract every synthesis request is normalised into (seed §9). */
export const SPEECH_REQUEST_CONTRACT = 'speech_request_v1';

/** Output formats by kind and locality (reference B.7 "Formats"); a configured engine's own list wins. */
export const REMOTE_TTS_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];
export const LOCAL_TTS_FORMATS = ['wav'];
export const REMOTE_STT_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'];
export const LOCAL_STT_FORMATS = ['json', 'text'];

/** What the hosted provider knows without being asked (reference B.2, B.3). */
export const HOSTED_TTS_MODELS = ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd'];
export const HOSTED_STT_MODELS = ['gpt-4o-transcribe', 'gpt-4o-mini-transcribe', 'whisper-1'];
export const HOSTED_BUILTIN_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse'];

export interface TtsProviderCatalog {
  provider: string;
  provider_id: string;
  remote: boolean;
  local: boolean;
  details: ProviderDetail | null;
  models: string[];
  model_variants: ModelVariant[];
  voices: VoiceEntry[];
  profiles: VoiceEntry[];
  cloned_voices: VoiceEntry[];
  voices_by_model: Record<string, string[]>;
  formats: string[];
  unreachable?: true;
  unreachable_reason?: string;
  unavailable?: UnavailableRecord;
}

export interface SttProviderCatalog {
  provider: string;
  provider_id: string;
  remote: boolean;
  local: boolean;
  details: ProviderDetail | null;
  models: string[];
  model_variants: ModelVariant[];
  formats: string[];
  /** What the engine accepts as input, by file suffix. */
  input_formats: string[];
  unreachable?: true;
  unreachable_reason?: string;
}

/** One selectable model of a provider; `default` marks the one used when none is named. */
export interface ModelVariant {
  id: string;
  model: string;
  provider: string;
  default: boolean;
}

/** What entries are built from besides the provider itself. */
export interface EntryContext {
  env: Env;
  ttsEngines: readonly TtsEngine[];
  sttEngines: readonly SpeechToTextEngine[];
  localTimeoutMs: number;
}

/** One TTS provider's entry of `tts_catalog_by_provider`, from its remote's answer or its local engine. */
export async function ttsEntry(ctx: EntryContext, handle: ProviderHandle, answer: RemoteAnswer | undefined, clones: ClonedVoiceRecord[], active: Required<ActiveSelection>, providersOnly: boolean): Promise<TtsProviderCatalog> {
  const id = handle.detail.id;
  const entry = blankTts(id, handle.detail);
  entry.cloned_voices = clones.filter((c) => c.engine === id).map(cloneEntry);
  const configured = ctx.ttsEngines.find((e) => e.id === id);
  entry.formats = [...(configured?.formats ?? (handle.detail.remote ? REMOTE_TTS_FORMATS : LOCAL_TTS_FORMATS))];
  let models: string[] = [];
  let profiles: VoiceEntry[] = [];
  if (handle.detail.remote) {
    const explicit = listEnv(ctx.env, id === 'hosted' ? 'VOICE_HOSTED_TTS_MODELS' : 'VOICE_REMOTE_TTS_MODELS');
    const known = explicit ?? (id === 'hosted' ? HOSTED_TTS_MODELS : (listEnv(ctx.env, 'VOICE_REMOTE_TTS_MODEL') ?? []));
    models = explicit ?? [...known, ...(answer?.models?.tts ?? [])];
    const voices = id === 'hosted' ? [...HOSTED_BUILTIN_VOICES, ...(listEnv(ctx.env, 'VOICE_HOSTED_TTS_VOICES') ?? [])] : (listEnv(ctx.env, 'VOICE_REMOTE_TTS_VOICES') ?? []);
    const discovered = (answer?.voices ?? []).map((v) => remoteVoiceEntry(id, v));
    profiles = providersOnly ? [] : dedupe([...voices.map((v) => remoteVoiceEntry(id, v)), ...discovered.filter((v) => v.kind !== 'clone')]);
    if (!providersOnly) entry.voices.push(...discovered.filter((v) => v.kind === 'clone'));
    if (answer?.unreachable) {
      entry.unreachable = true;
      entry.unreachable_reason = answer.unreachable;
    }
  } else if (handle.tts && !providersOnly) {
    try {
      const engine = handle.tts;
      models = await withinMs(engine.models(), ctx.localTimeoutMs, `the ${id} engine's model list`);
      profiles = (await withinMs(engine.profiles(), ctx.localTimeoutMs, `the ${id} engine's profile list`)).map((p: VoiceProfile) => profileEntry(id, p));
    } catch (err) {
      entry.unavailable = { code: 'runtime_missing', reason: `The ${id} engine could not list its voices: ${(err as Error).message}` };
    }
  }
  if (active.ttsProvider === id && active.ttsModel) models.push(active.ttsModel);
  entry.models = [...new Set(models)];
  entry.profiles = profiles;
  entry.voices = dedupe([...profiles, ...entry.voices, ...entry.cloned_voices]);
  const defaultModel = active.ttsProvider === id && active.ttsModel ? active.ttsModel : (entry.models[0] ?? null);
  entry.model_variants = entry.models.map((m) => ({ id: `${id}:${m}`, model: m, provider: id, default: m === defaultModel }));
  // Voices do not depend on the model for any provider Keel knows: every model offers them all.
  const ids = profiles.map((p) => p.id);
  entry.voices_by_model = Object.fromEntries(entry.models.map((m) => [m, ids]));
  return entry;
}

export function blankTts(id: string, detail: ProviderDetail | null, unavailable?: UnavailableRecord): TtsProviderCatalog {
  return {
    provider: id,
    provider_id: id,
    remote: detail?.remote ?? (id === 'hosted' || id === 'compatible'),
    local: detail?.local ?? !(id === 'hosted' || id === 'compatible'),
    details: detail,
    models: [],
    model_variants: [],
    voices: [],
    profiles: [],
    cloned_voices: [],
    voices_by_model: {},
    formats: [],
    ...(unavailable ? { unavailable } : {}),
  };
}

/** One STT provider's entry of `stt_catalog_by_provider`. */
export async function sttEntry(ctx: EntryContext, handle: ProviderHandle, answer: RemoteAnswer | undefined, active: Required<ActiveSelection>, providersOnly: boolean): Promise<SttProviderCatalog> {
  const id = handle.detail.id;
  const configured = ctx.sttEngines.find((e) => e.id === id);
  let models: string[] = [];
  const entry: SttProviderCatalog = {
    provider: id,
    provider_id: id,
    remote: handle.detail.remote,
    local: handle.detail.local,
    details: handle.detail,
    models: [],
    model_variants: [],
    formats: handle.detail.remote ? [...REMOTE_STT_FORMATS] : [...LOCAL_STT_FORMATS],
    input_formats: [...(configured?.formats ?? [])],
  };
  if (handle.detail.remote) {
    const explicit = listEnv(ctx.env, id === 'hosted' ? 'VOICE_HOSTED_STT_MODELS' : 'VOICE_REMOTE_STT_MODELS');
    models = explicit ?? [...(id === 'hosted' ? HOSTED_STT_MODELS : (listEnv(ctx.env, 'VOICE_REMOTE_STT_MODEL') ?? [])), ...(answer?.models?.stt ?? [])];
    if (answer?.unreachable) {
      entry.unreachable = true;
      entry.unreachable_reason = answer.unreachable;
    }
  } else if (handle.stt && !providersOnly) {
    models = await withinMs(handle.stt.models(), ctx.localTimeoutMs, `the ${id} engine's model list`).catch(() => []);
  }
  if (active.sttProvider === id && active.sttModel) models.push(active.sttModel);
  entry.models = [...new Set(models)];
  const defaultModel = active.sttProvider === id && active.sttModel ? active.sttModel : (entry.models[0] ?? null);
  entry.model_variants = entry.models.map((m) => ({ id: `${id}:${m}`, model: m, provider: id, default: m === defaultModel }));
  return entry;
}

/** The provider's own catalog, as the engine or remote reported it (reference B.7 `catalog`). */
export function rawCatalog(entry: TtsProviderCatalog): Record<string, unknown> {
  return {
    provider: entry.provider,
    remote: entry.remote,
    local: entry.local,
    models: entry.models,
    profiles: entry.profiles.map((p) => ({ profile_id: p.profile_id, label: p.label, params: p.params })),
    formats: entry.formats,
    ...(entry.unreachable ? { unreachable: true } : {}),
  };
}

/** A comma-separated `VOICE_*` list, or null when unset or empty. */
function listEnv(env: Env, name: string): string[] | null {
  const items = (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, 1000);
  return items.length > 0 ? items : null;
}

function dedupe(entries: VoiceEntry[]): VoiceEntry[] {
  const seen = new Set<string>();
  return entries.filter((e) => (seen.has(`${e.kind}:${e.id}`) ? false : (seen.add(`${e.kind}:${e.id}`), true)));
}
