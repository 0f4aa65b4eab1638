/**
 * Discovery (reference B.7, seed §2B): `availableProviders()` and `voiceCatalog()` computed from
 * what is configured — the remote endpoints in the settings, probed within the shared budget and
 * cached for the TTL, and the local engines the manager holds, asked through their contract. A
 * provider that is unknown, unavailable or unreachable never makes a listing throw: its lists are
 * empty and the payload says why.
 */
import { VoiceError, type EngineSettings, type SpeechToTextEngine, type TtsEngine } from '../contracts.js';
import type { ClonedVoiceRecord, ClonedVoiceSource } from '../cloning/voice-record.js';
import { CAPABILITY_FEATURES, defaultCapabilityRegistry, type CapabilityRegistry, type CapabilitySupport, type CompatibilityCatalog, type CompatibleModel } from './capabilities.js';
import { addStt, addTts, emptyPayload, type AvailableProviders, type VoiceCatalogPayload } from './catalog-payload.js';
import { DiscoveryCache } from './discovery-cache.js';
import { DEFAULT_LOCAL_ANSWER_TIMEOUT_MS, discoverySettings, envOf, type DiscoverySettings, type Env } from './discovery-settings.js';
import { blankTts, rawCatalog, sttEntry, ttsEntry, type EntryContext, type TtsProviderCatalog } from './provider-entries.js';
import { normalizeProvider, splitSelector, type ProviderKind } from './provider-ids.js';
import { resolveProviders, type ActiveSelection, type ProviderState } from './providers.js';
import { cloneEntry, type VoiceEntry } from './records.js';
import { probeRemotes, type RemoteAnswer } from './remote-probe.js';

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
  /** Bound on each local engine's answer in a listing (default 30 s): a hung engine is listed unavailable. */
  localTimeoutMs?: number;
}

export class VoiceCatalog {
  private readonly settings: Partial<EngineSettings>;
  private readonly env: Env;
  private readonly cache: DiscoveryCache;
  readonly capabilities: CapabilityRegistry;

  constructor(private readonly options: VoiceCatalogOptions = {}) {
    this.settings = options.settings ?? {};
    this.env = options.env ?? envOf(options.settings) ?? process.env;
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
    const payload = emptyPayload(state, active, this.providersPayload(state));
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

    const ttsEntries = await Promise.all(ttsHandles.map((h) => ttsEntry(this.entryContext(), h, answers.get(h.detail.id), clones, active, providersOnly)));
    for (const entry of ttsEntries) addTts(payload, entry);
    if (filter !== null && state.unavailable.tts[filter]) {
      const entry = blankTts(filter, null, state.unavailable.tts[filter]!);
      entry.cloned_voices = payload.cloned_voices;
      addTts(payload, entry);
    }
    if (!light) {
      const sttEntries = await Promise.all(sttHandles.map((h) => sttEntry(this.entryContext(), h, answers.get(h.detail.id), active, providersOnly)));
      for (const entry of sttEntries) addStt(payload, entry);
    }

    const selectedEntry = ttsEntries.find((e) => e.provider === selected);
    const selectedModel = selector.model ?? (selected === active.ttsProvider ? (active.ttsModel ?? null) : null);
    if (selectedEntry) {
      payload.profiles = selectedEntry.profiles;
      payload.tts_models = selectedEntry.models;
      payload.voices = selectedModel && selectedEntry.voices_by_model[selectedModel] ? selectedEntry.voices.filter((v) => v.kind === 'clone' || selectedEntry.voices_by_model[selectedModel]!.includes(v.id)) : selectedEntry.voices;
      if (filter === null) payload.voices = [...payload.voices.filter((v) => v.kind !== 'clone'), ...payload.cloned_voices];
      if (selectedEntry.unreachable) payload.unavailable_reason = selectedEntry.unreachable_reason ?? 'unreachable';
      if (selectedEntry.unavailable) payload.unavailable_reason = selectedEntry.unavailable.reason;
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

  /** Voices of a provider (reference B.7 `list_tts_voices`), the store's clones included unless asked not to. */
  async listTtsVoices(provider?: string | null, model?: string | null, includeClones = true): Promise<VoiceEntry[]> {
    const payload = await this.voiceCatalog(provider ?? null, model ?? null);
    return includeClones ? payload.voices : payload.voices.filter((v) => v.kind !== 'clone');
  }

  /** The store's cloned voices, optionally only those held by `provider` (reference B.7 `list_cloned_voices`). */
  async listClonedVoices(provider?: string | null): Promise<VoiceEntry[]> {
    const wanted = provider ? normalizeProvider('cloning', provider) : null;
    return (await this.clonedVoices()).filter((c) => wanted === null || c.engine === wanted).map(cloneEntry);
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

  private entryContext(): EntryContext {
    return { env: this.env, ttsEngines: this.options.ttsEngines ?? [], sttEngines: this.options.sttEngines ?? [], localTimeoutMs: this.options.localTimeoutMs ?? DEFAULT_LOCAL_ANSWER_TIMEOUT_MS };
  }

  private async state(): Promise<ProviderState> {
    return resolveProviders({ localTimeoutMs: this.options.localTimeoutMs, settings: this.settings, ttsEngines: this.options.ttsEngines ?? [], sttEngines: this.options.sttEngines ?? [], env: this.env, active: this.options.active?.() ?? { ttsProvider: null, sttProvider: null } });
  }

  /** The manager's selection, or (standalone) the first available provider of each kind. */
  private active(state: ProviderState): Required<ActiveSelection> {
    const given = this.options.active?.();
    return {
      ttsProvider: given ? normalizeProvider('tts', given.ttsProvider) : (state.available.tts[0]?.detail.id ?? null),
      sttProvider: given ? normalizeProvider('stt', given.sttProvider) : (state.available.stt[0]?.detail.id ?? null),
      cloningProvider: (given?.cloningProvider ? normalizeProvider('cloning', given.cloningProvider) : null) ?? state.available.cloning[0]?.detail.id ?? null,
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
