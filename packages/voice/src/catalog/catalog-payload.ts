/**
 * The shape of `voice_catalog` and `available_providers` (reference B.7, seed §2B): every key is
 * always present, filled as "nothing known" before any provider is asked, so a listing's shape
 * never depends on which providers answered.
 */
import type { CompatibilityCatalog } from './capabilities.js';
import type { ActiveSelection, ProviderDetail, ProviderState, UnavailableRecord } from './providers.js';
import type { ProviderKind } from './provider-ids.js';
import { SPEECH_REQUEST_CONTRACT, type ModelVariant, type SttProviderCatalog, type TtsProviderCatalog } from './provider-entries.js';
import type { VoiceEntry } from './records.js';

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

/** Every key the catalog has, filled as "nothing known" (the shape never depends on what answered). */
export function emptyPayload(state: ProviderState, active: Required<ActiveSelection>, availableProviders: AvailableProviders) {
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
    available_providers: availableProviders,
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

export type VoiceCatalogPayload = ReturnType<typeof emptyPayload> & Record<string, unknown>;

export function addTts(payload: VoiceCatalogPayload, entry: TtsProviderCatalog): void {
  const p = entry.provider;
  payload.tts_catalog_by_provider[p] = entry;
  payload.tts_models_by_provider[p] = entry.models;
  payload.tts_model_roles_by_provider[p] = 'model';
  payload.tts_model_variants[p] = entry.model_variants;
  payload.tts_voices_by_provider[p] = entry.voices;
  payload.tts_profiles_by_provider[p] = entry.profiles;
  payload.tts_formats_by_provider[p] = entry.formats;
}

export function addStt(payload: VoiceCatalogPayload, entry: SttProviderCatalog): void {
  const p = entry.provider;
  payload.stt_catalog_by_provider[p] = entry;
  payload.stt_models_by_provider[p] = entry.models;
  payload.stt_engine_variants[p] = entry.model_variants;
  payload.stt_formats_by_provider[p] = entry.formats;
}
