/**
 * Discovery (reference B.7, seed §2B): `availableProviders()` and `voiceCatalog()` computed from
 * what is configured — the remote endpoints in the settings, probed within the shared budget and
 * cached for the TTL, and the local engines the manager holds, asked through their contract. A
 * provider that is unknown, unavailable or unreachable never makes a listing throw: its lists are
 * empty and the payload says why.
 */
import { VoiceError, type EngineSettings, type SpeechToTextEngine, type TtsEngine, type VoiceProfile } from '../contracts.js';
import type { ClonedVoiceRecord, ClonedVoiceSource } from '../cloning/voice-record.js';
import { CAPABILITY_FEATURES, defaultCapabilityRegistry, type CapabilityRegistry, type CapabilitySupport, type CompatibilityCatalog, type CompatibleModel } from './capabilities.js';
import { DiscoveryCache } from './discovery-cache.js';
import { discoverySettings, type DiscoverySettings, type Env } from './discovery-settings.js';
import { splitSelector, type ProviderKind } from './provider-ids.js';
import { resolveProviders, type ActiveSelection, type ProviderDetail, type ProviderHandle, type ProviderState, type UnavailableRecord } from './providers.js';
import { cloneEntry, profileEntry, remoteVoiceEntry, type VoiceEntry } from './records.js';
import { probeRemotes, type RemoteAnswer } from './remote-probe.js';

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

export interface VoiceCatalogOptions {
  /** Remote endpoints and keys (the manager's resolved settings). */
  settings?: Partial<EngineSettings>;
  /** The engines the manager was configured with; local ones are listed, remote ones lend their formats. */
  ttsEngines?: readonly TtsEngine[];
  sttEngines?: readonly SpeechToTextEngine[];
  /** The manager's current selection, read at every listing. */
  active?: () => ActiveSelection;
  clones?: ClonedVoiceSource;
  capabilities?: CapabilityRegistry;
  /** Where `VOICE_*` and `HOSTED_*` settings are read (default `process.env`). */
  env?: Env;
  /** Milliseconds clock for the answer TTL (tests age answers with their own). */
  clock?: () => number;
}

export interface AvailableProviders {
  tts: string[];
  stt: string[];
  cloning: string[];
  providers: string[];
  tts_providers: string[];
  stt_providers: string[];
  cloning_providers: string[];
  known_tts_providers: string[];
  known_stt_providers: string[];
  known_cloning_providers: string[];
  active_tts_provider: string | null;
  active_stt_provider: string | null;
  active_cloning_provider: string | null;
  details: Record<ProviderKind, Record<string, ProviderDetail>>;
  unavailable: Record<ProviderKind, Record<string, UnavailableRecord>>;
}

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

export type VoiceCatalogPayload = ReturnType<VoiceCatalog['emptyPayload']> & Record<string, unknown>;

export class VoiceCatalog {
  private readonly settings: Partial<EngineSettings>;
  private readonly env: Env;
  private readonly cache: DiscoveryCache;
  readonly capabilities: CapabilityRegistry;

  constructor(private readonly options: VoiceCatalogOptions = {}) {
    this.settings = options.settings ?? {};
    this.env = options.env ?? process.env;
    this.cache = new DiscoveryCache(options.clock);
    this.capabilities = options.capabilities ?? defaultCapabilityRegistry();
  }

  /** The shared budget, the per-request timeout and the TTL in force (read from the env each time). */
  discoverySettings(): DiscoverySettings {
    return discoverySettings(this.env, this.settings.remoteTimeoutS);
  }

  /** Forgets remote answers so the next listing asks again (the reference's `refresh_profiles()`). */
  refresh(): void {
    this.cache.clear();
  }

  /** Provider ids per kind without probing any remote (reference B.7 `available_providers()`). */
  async availableProviders(): Promise<AvailableProviders> {
    return this.providersPayload(await this.state());
  }

  /**
   * The discovery catalog (reference B.7 `voice_catalog`). `provider` may be `provider:model`. With
   * `providersOnly`, or filtered to a local provider, nobody is contacted (the light path).
   */
  async voiceCatalog(provider?: string | null, model?: string | null, providersOnly = false): Promise<VoiceCatalogPayload> {
    const payload = await this.build(provider, model, providersOnly);
    // Absent means "not checked"; an empty list means "checked, all reachable" (reference B.7).
    if (payload.unreachable_tts_providers === undefined) delete (payload as Partial<VoiceCatalogPayload>).unreachable_tts_providers;
    return payload;
  }

  private async build(provider: string | null | undefined, model: string | null | undefined, providersOnly: boolean): Promise<VoiceCatalogPayload> {
    const state = await this.state();
    const active = this.active(state);
    const selector = splitSelector('tts', provider, model, state.known.tts);
    const payload = this.emptyPayload(state, active);
    const filter = selector.provider;
    const selected = filter ?? active.ttsProvider;
    payload.provider_id = payload.engine_id = selected;

    if (filter !== null && !state.known.tts.includes(filter) && !state.known.stt.includes(filter)) {
      payload.unavailable_reason = `Unknown TTS provider: ${JSON.stringify(filter.slice(0, 64))}. Known: ${state.known.tts.join(', ')}.`;
      return payload;
    }
    const ttsHandles = state.available.tts.filter((h) => filter === null || h.detail.id === filter);
    const sttHandles = state.available.stt.filter((h) => filter === null || h.detail.id === filter);
    const light = providersOnly || (filter !== null && ttsHandles.length > 0 && ttsHandles.every((h) => h.detail.local));
    const clones = await this.clonedVoices();
    payload.cloned_voices = clones.filter((c) => filter === null || c.engine === filter).map(cloneEntry);

    let answers = new Map<string, RemoteAnswer>();
    if (!light) {
      const remotes = [...ttsHandles, ...sttHandles].filter((h, i, all) => h.endpoint && all.findIndex((o) => o.detail.id === h.detail.id) === i);
      if (remotes.length > 0) answers = await probeRemotes(remotes, this.discoverySettings(), this.cache, this.env);
      if (remotes.length > 0) {
        payload.unreachable_tts_providers = ttsHandles.filter((h) => answers.get(h.detail.id)?.unreachable).map((h) => h.detail.id).sort();
      }
    }

    const ttsEntries = await Promise.all(ttsHandles.map((h) => this.ttsEntry(h, answers.get(h.detail.id), clones, active, providersOnly)));
    for (const entry of ttsEntries) this.addTts(payload, entry);
    if (filter !== null && state.unavailable.tts[filter]) {
      const entry = this.blankTts(filter, null, state.unavailable.tts[filter]!);
      entry.cloned_voices = payload.cloned_voices;
      this.addTts(payload, entry);
    }
    if (!light) {
      const sttEntries = await Promise.all(sttHandles.map((h) => this.sttEntry(h, answers.get(h.detail.id), active, providersOnly)));
      for (const entry of sttEntries) this.addStt(payload, entry);
    }

    const selectedEntry = ttsEntries.find((e) => e.provider === selected);
    const selectedModel = selector.model ?? (selected === active.ttsProvider ? (active.ttsModel ?? null) : null);
    if (selectedEntry) {
      payload.profiles = selectedEntry.profiles;
      payload.tts_models = selectedEntry.models;
      payload.voices = selectedModel && selectedEntry.voices_by_model[selectedModel] ? selectedEntry.voices.filter((v) => v.kind === 'clone' || selectedEntry.voices_by_model[selectedModel]!.includes(v.id)) : selectedEntry.voices;
      if (filter === null) payload.voices = [...payload.voices.filter((v) => v.kind !== 'clone'), ...payload.cloned_voices];
      if (selectedEntry.unreachable) payload.unavailable_reason = selectedEntry.unreachable_reason ?? 'unreachable';
    }
    const sttSelected = payload.stt_catalog_by_provider[filter ?? active.sttProvider ?? ''];
    payload.stt_models = sttSelected?.models ?? [];
    if (selected !== null && payload.unavailable_reason === null) {
      const why = state.unavailable.tts[selected]?.reason;
      if (why) payload.unavailable_reason = why;
    }
    if (!providersOnly && !light && selectedEntry) {
      payload.active_profile = this.activeProfile(selectedEntry, active, selected === active.ttsProvider);
    }

    payload.controls = this.controls(selected, selectedModel, state);
    if (light) {
      payload.source = 'keel.light_catalog';
      return payload;
    }
    payload.source = 'keel.voice_catalog';
    payload.tts_capabilities = selected === null ? {} : this.ttsCapabilities(selected, selectedModel);
    payload.compatibility_catalog = this.capabilities.compatibilityCatalog({ tts: payload.tts_models_by_provider, stt: payload.stt_models_by_provider });
    const catalogs: Record<string, Record<string, unknown>> = {};
    for (const entry of ttsEntries) catalogs[entry.provider] = rawCatalog(entry);
    payload.catalogs = catalogs;
    payload.catalog = selected !== null && catalogs[selected] ? catalogs[selected]! : {};
    return payload;
  }

  /** Model ids of one kind (reference B.7 `list_models`); an unknown kind is a 400. */
  async listModels(kind: string, provider?: string | null): Promise<string[]> {
    if (kind !== 'tts' && kind !== 'stt' && kind !== 'cloning') throw new VoiceError("kind must be 'tts', 'stt', or 'cloning'", 400, 'invalid_kind');
    if (kind === 'cloning') {
      const state = await this.state();
      const ids = provider ? [provider] : state.available.cloning.map((h) => h.detail.id);
      const catalog = this.capabilities.compatibilityCatalog().providers.cloning;
      return ids.flatMap((id) => Object.keys(catalog[id]?.models ?? {}).filter((m) => m !== '*'));
    }
    const payload = await this.voiceCatalog(provider ?? null);
    if (kind === 'tts') return provider ? payload.tts_models : [...new Set(Object.values(payload.tts_models_by_provider).flat())];
    return provider ? payload.stt_models : [...new Set(Object.values(payload.stt_models_by_provider).flat())];
  }

  compatibilityCatalog(): CompatibilityCatalog {
    return this.capabilities.compatibilityCatalog();
  }

  getCapabilitySupport(kind: string, feature: string, provider: string, model: string | null = null, surface = 'default'): CapabilitySupport | null {
    return this.capabilities.getCapabilitySupport(kind, feature, provider, model, surface);
  }

  findCompatibleModels(kind: string, feature: string, surface = 'default', supportIn?: readonly string[]): CompatibleModel[] {
    return this.capabilities.findCompatibleModels(kind, feature, surface, supportIn);
  }

  /** Every key the catalog has, filled as "nothing known" (the shape never depends on what answered). */
  emptyPayload(state: ProviderState, active: Required<ActiveSelection>) {
    return {
      kind: 'tts' as const,
      engine_id: active.ttsProvider as string | null,
      provider_id: active.ttsProvider as string | null,
      active_profile: null as VoiceEntry | null,
      active_model: active.ttsModel,
      active_tts_provider: active.ttsProvider,
      active_stt_provider: active.sttProvider,
      profiles: [] as VoiceEntry[],
      voices: [] as VoiceEntry[],
      cloned_voices: [] as VoiceEntry[],
      tts_providers: state.available.tts.map((h) => h.detail.id),
      stt_providers: state.available.stt.map((h) => h.detail.id),
      available_providers: this.providersPayload(state),
      available_tts_providers: state.available.tts.map((h) => h.detail.id),
      available_stt_providers: state.available.stt.map((h) => h.detail.id),
      available_cloning_providers: state.available.cloning.map((h) => h.detail.id),
      tts_models: [] as string[],
      stt_models: [] as string[],
      tts_models_by_provider: {} as Record<string, string[]>,
      stt_models_by_provider: {} as Record<string, string[]>,
      tts_model_roles_by_provider: {} as Record<string, 'language' | 'model'>,
      tts_model_variants: {} as Record<string, ModelVariant[]>,
      stt_engine_variants: {} as Record<string, ModelVariant[]>,
      tts_voices_by_provider: {} as Record<string, VoiceEntry[]>,
      tts_profiles_by_provider: {} as Record<string, VoiceEntry[]>,
      tts_catalog_by_provider: {} as Record<string, TtsProviderCatalog>,
      stt_catalog_by_provider: {} as Record<string, SttProviderCatalog>,
      tts_formats_by_provider: {} as Record<string, string[]>,
      stt_formats_by_provider: {} as Record<string, string[]>,
      /** Present only when remotes were probed: absent means "not checked", empty means "all reachable". */
      unreachable_tts_providers: undefined as string[] | undefined,
      controls: {} as Record<string, Record<string, unknown>>,
      tts_capabilities: {} as Record<string, { support: string; reason: string | null }>,
      speech_request_contract: SPEECH_REQUEST_CONTRACT,
      compatibility_catalog: {} as CompatibilityCatalog | Record<string, never>,
      catalog: {} as Record<string, unknown>,
      catalogs: {} as Record<string, unknown>,
      unavailable_providers: state.unavailable,
      unavailable_reason: null as string | null,
      source: 'keel.light_catalog' as 'keel.light_catalog' | 'keel.voice_catalog',
    };
  }

  private async state(): Promise<ProviderState> {
    return resolveProviders({ settings: this.settings, ttsEngines: this.options.ttsEngines ?? [], sttEngines: this.options.sttEngines ?? [], env: this.env, active: this.options.active?.() ?? { ttsProvider: null, sttProvider: null } });
  }

  /** The manager's selection, or (standalone) the first available provider of each kind. */
  private active(state: ProviderState): Required<ActiveSelection> {
    const given = this.options.active?.();
    return {
      ttsProvider: given ? given.ttsProvider : (state.available.tts[0]?.detail.id ?? null),
      sttProvider: given ? given.sttProvider : (state.available.stt[0]?.detail.id ?? null),
      cloningProvider: given?.cloningProvider ?? state.available.cloning[0]?.detail.id ?? null,
      ttsModel: given?.ttsModel ?? null,
      sttModel: given?.sttModel ?? null,
      profile: given?.profile ?? null,
    };
  }

  private providersPayload(state: ProviderState): AvailableProviders {
    const ids = (kind: ProviderKind) => state.available[kind].map((h) => h.detail.id);
    const details = (kind: ProviderKind) => Object.fromEntries(state.available[kind].map((h) => [h.detail.id, { ...h.detail }]));
    const active = this.active(state);
    return {
      tts: ids('tts'),
      stt: ids('stt'),
      cloning: ids('cloning'),
      providers: [...new Set([...ids('tts'), ...ids('stt'), ...ids('cloning')])],
      tts_providers: ids('tts'),
      stt_providers: ids('stt'),
      cloning_providers: ids('cloning'),
      known_tts_providers: state.known.tts,
      known_stt_providers: state.known.stt,
      known_cloning_providers: state.known.cloning,
      active_tts_provider: active.ttsProvider,
      active_stt_provider: active.sttProvider,
      active_cloning_provider: active.cloningProvider,
      details: { tts: details('tts'), stt: details('stt'), cloning: details('cloning') },
      unavailable: structuredClone(state.unavailable),
    };
  }

  private async clonedVoices(): Promise<ClonedVoiceRecord[]> {
    try {
      return (await this.options.clones?.list()) ?? [];
    } catch {
      return [];
    }
  }

  private async ttsEntry(handle: ProviderHandle, answer: RemoteAnswer | undefined, clones: ClonedVoiceRecord[], active: Required<ActiveSelection>, providersOnly: boolean): Promise<TtsProviderCatalog> {
    const id = handle.detail.id;
    const entry = this.blankTts(id, handle.detail);
    entry.cloned_voices = clones.filter((c) => c.engine === id).map(cloneEntry);
    const configured = this.options.ttsEngines?.find((e) => e.id === id);
    entry.formats = [...(configured?.formats ?? (handle.detail.remote ? REMOTE_TTS_FORMATS : LOCAL_TTS_FORMATS))];
    let models: string[] = [];
    let profiles: VoiceEntry[] = [];
    if (handle.detail.remote) {
      const explicit = listEnv(this.env, id === 'hosted' ? 'VOICE_HOSTED_TTS_MODELS' : 'VOICE_REMOTE_TTS_MODELS');
      const known = explicit ?? (id === 'hosted' ? HOSTED_TTS_MODELS : (listEnv(this.env, 'VOICE_REMOTE_TTS_MODEL') ?? []));
      models = explicit ?? [...known, ...(answer?.models?.tts ?? [])];
      const voices = id === 'hosted' ? [...HOSTED_BUILTIN_VOICES, ...(listEnv(this.env, 'VOICE_HOSTED_TTS_VOICES') ?? [])] : (listEnv(this.env, 'VOICE_REMOTE_TTS_VOICES') ?? []);
      const discovered = (answer?.voices ?? []).map((v) => remoteVoiceEntry(id, v));
      profiles = providersOnly ? [] : dedupe([...voices.map((v) => remoteVoiceEntry(id, v)), ...discovered.filter((v) => v.kind !== 'clone')]);
      if (!providersOnly) entry.voices.push(...discovered.filter((v) => v.kind === 'clone'));
      if (answer?.unreachable) {
        entry.unreachable = true;
        entry.unreachable_reason = answer.unreachable;
      }
    } else if (handle.tts && !providersOnly) {
      try {
        models = await handle.tts.models();
        profiles = (await handle.tts.profiles()).map((p: VoiceProfile) => profileEntry(id, p));
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

  private blankTts(id: string, detail: ProviderDetail | null, unavailable?: UnavailableRecord): TtsProviderCatalog {
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

  private async sttEntry(handle: ProviderHandle, answer: RemoteAnswer | undefined, active: Required<ActiveSelection>, providersOnly: boolean): Promise<SttProviderCatalog> {
    const id = handle.detail.id;
    const configured = this.options.sttEngines?.find((e) => e.id === id);
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
      const explicit = listEnv(this.env, id === 'hosted' ? 'VOICE_HOSTED_STT_MODELS' : 'VOICE_REMOTE_STT_MODELS');
      models = explicit ?? [...(id === 'hosted' ? HOSTED_STT_MODELS : (listEnv(this.env, 'VOICE_REMOTE_STT_MODEL') ?? [])), ...(answer?.models?.stt ?? [])];
      if (answer?.unreachable) {
        entry.unreachable = true;
        entry.unreachable_reason = answer.unreachable;
      }
    } else if (handle.stt && !providersOnly) {
      models = await handle.stt.models().catch(() => []);
    }
    if (active.sttProvider === id && active.sttModel) models.push(active.sttModel);
    entry.models = [...new Set(models)];
    const defaultModel = active.sttProvider === id && active.sttModel ? active.sttModel : (entry.models[0] ?? null);
    entry.model_variants = entry.models.map((m) => ({ id: `${id}:${m}`, model: m, provider: id, default: m === defaultModel }));
    return entry;
  }

  private addTts(payload: VoiceCatalogPayload, entry: TtsProviderCatalog): void {
    const p = entry.provider;
    payload.tts_catalog_by_provider[p] = entry;
    payload.tts_models_by_provider[p] = entry.models;
    payload.tts_model_roles_by_provider[p] = 'model';
    payload.tts_model_variants[p] = entry.model_variants;
    payload.tts_voices_by_provider[p] = entry.voices;
    payload.tts_profiles_by_provider[p] = entry.profiles;
    payload.tts_formats_by_provider[p] = entry.formats;
  }

  private addStt(payload: VoiceCatalogPayload, entry: SttProviderCatalog): void {
    const p = entry.provider;
    payload.stt_catalog_by_provider[p] = entry;
    payload.stt_models_by_provider[p] = entry.models;
    payload.stt_engine_variants[p] = entry.model_variants;
    payload.stt_formats_by_provider[p] = entry.formats;
  }

  private activeProfile(entry: TtsProviderCatalog, active: Required<ActiveSelection>, isActive: boolean): VoiceEntry | null {
    const engine = this.options.ttsEngines?.find((e) => e.id === entry.provider);
    const wanted = (isActive ? active.profile : null) ?? engine?.defaultProfile ?? (entry.provider === 'hosted' ? 'alloy' : null);
    return entry.profiles.find((p) => p.id === wanted) ?? null;
  }

  /** Each TTS feature for the provider and model on surface `bytes` (what `speak_to_bytes` honours). */
  private ttsCapabilities(provider: string, model: string | null): Record<string, { support: string; reason: string | null }> {
    const out: Record<string, { support: string; reason: string | null }> = {};
    for (const feature of CAPABILITY_FEATURES.tts) {
      const found = this.capabilities.getCapabilitySupport('tts', feature, provider, model, 'bytes');
      out[feature] = found ? { support: found.support, reason: found.reason } : { support: 'unsupported', reason: `No capability data for provider ${provider}.` };
    }
    return out;
  }

  private controls(provider: string | null, model: string | null, state: ProviderState): Record<string, Record<string, unknown>> {
    const supported = (feature: string) => {
      if (provider === null) return false;
      const found = this.capabilities.getCapabilitySupport('tts', feature, provider, model, 'bytes');
      return found !== null && found.support !== 'unsupported';
    };
    return {
      speed: { supported: supported('speed'), min: 0.5, max: 2.0, default: 1.0 },
      quality_preset: { supported: supported('quality_preset'), values: ['low', 'standard', 'high'], default: 'standard' },
      instructions: { supported: supported('instructions') },
      profile: { supported: supported('profile') },
      voice_clone: { supported: state.available.cloning.length > 0 },
    };
  }
}

/** The provider's own catalog, as the engine or remote reported it (reference B.7 `catalog`). */
function rawCatalog(entry: TtsProviderCatalog): Record<string, unknown> {
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
