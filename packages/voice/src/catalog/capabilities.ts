/**
 * Capability support (reference B.8): which request features each provider and model honours, on
 * which surface. The data are the reference's own capability file (MIT, copied verbatim into
 * `data/`) plus Keel's rows for its local engines (`data/keel-engine-capabilities.json`, same
 * schema). Loading validates every support value; the reference's provider names `openai` and
 * `openai-compatible` are Keel's `hosted` and `compatible`.
 */
import referenceData from './data/voice-model-capabilities.json' with { type: 'json' };
import keelData from './data/keel-engine-capabilities.json' with { type: 'json' };
import { normalizeProvider, sortProviders, type ProviderKind } from './provider-ids.js';

export type SupportLevel = 'native' | 'emulated' | 'conditional' | 'unsupported';
export const SUPPORT_LEVELS: readonly SupportLevel[] = ['native', 'emulated', 'conditional', 'unsupported'];

export interface CapabilitySupport {
  support: SupportLevel;
  reason: string | null;
  metadata: Record<string, unknown>;
}

/** Features and surfaces per kind; the first surface is the default (reference B.8). */
export const CAPABILITY_FEATURES: Record<ProviderKind, readonly string[]> = {
  tts: ['speed', 'quality_preset', 'instructions', 'profile', 'pace', 'target_duration_s', 'actions', 'scene_context', 'ambient_audio', 'background_sfx', 'output_channels'],
  stt: ['language', 'prompt', 'audio_bytes', 'audio_array', 'word_timestamps'],
  cloning: ['reference_audio', 'reference_text', 'reference_text_autofallback', 'multi_reference_audio', 'speed', 'audio_chunks'],
};
export const CAPABILITY_SURFACES: Record<ProviderKind, readonly string[]> = {
  tts: ['bytes', 'playback'],
  stt: ['transcribe'],
  cloning: ['create', 'speak_bytes'],
};

export const COMPATIBILITY_VERSION = 'compatibility_v1';

type SurfaceMap = Record<string, Record<string, CapabilitySupport>>;

export interface ProviderCapabilities {
  kind: ProviderKind;
  provider: string;
  source?: string;
  default_surfaces: SurfaceMap;
  models: Record<string, { model: string; surfaces: SurfaceMap }>;
}

export interface CompatibilityCatalog {
  version: string;
  providers: Record<ProviderKind, Record<string, ProviderCapabilities>>;
}

export interface CompatibleModel {
  kind: ProviderKind;
  provider: string;
  model: string | null;
  surface: string;
  feature: string;
  support: CapabilitySupport;
}

/** The data file is not what the schema says (a broken replacement file, say). */
export class CapabilityDataError extends Error {}

export class CapabilityRegistry {
  private readonly providers: Record<ProviderKind, Map<string, ProviderCapabilities>> = { tts: new Map(), stt: new Map(), cloning: new Map() };

  /** Each document has the reference file's shape; later documents add providers or override earlier ones. */
  constructor(documents: readonly unknown[] = [referenceData, keelData]) {
    for (const doc of documents) this.load(doc);
  }

  /**
   * `{version, providers:{kind:{p:{kind, provider, default_surfaces, models}}}}`. `extraModels` adds
   * models known elsewhere (configured, discovered) to their provider's list; a provider with no
   * model gets the single model `*`.
   */
  compatibilityCatalog(extraModels: Partial<Record<ProviderKind, Record<string, readonly string[]>>> = {}): CompatibilityCatalog {
    const out = { version: COMPATIBILITY_VERSION, providers: { tts: {}, stt: {}, cloning: {} } } as CompatibilityCatalog;
    for (const kind of ['tts', 'stt', 'cloning'] as const) {
      for (const id of sortProviders(kind, this.providers[kind].keys())) {
        const entry = this.providers[kind].get(id)!;
        const models: ProviderCapabilities['models'] = structuredClone(entry.models);
        for (const model of extraModels[kind]?.[id] ?? []) models[model] ??= { model, surfaces: {} };
        if (Object.keys(models).length === 0) models['*'] = { model: '*', surfaces: {} };
        out.providers[kind][id] = { kind, provider: id, default_surfaces: structuredClone(entry.default_surfaces), models };
      }
    }
    return out;
  }

  /** The providers the data know for `kind`, in listing order. */
  providerIds(kind: ProviderKind): string[] {
    return sortProviders(kind, this.providers[kind].keys());
  }

  /**
   * `{support, reason, metadata}` of `feature` for `provider`/`model` on `surface`, or null when the
   * data say nothing. Looks in the model's surface map, then the `*` model, then the provider's
   * default surfaces.
   */
  getCapabilitySupport(kind: string, feature: string, provider: string, model: string | null = null, surface = 'default'): CapabilitySupport | null {
    const k = asKind(kind);
    if (k === null) return null;
    const s = resolveSurface(k, surface);
    const p = normalizeProvider(k, provider);
    const entry = p === null ? undefined : this.providers[k].get(p);
    if (!entry || s === null) return null;
    const fromModel = (m: string) => entry.models[m]?.surfaces[s]?.[feature];
    const found = (model !== null && model !== '' ? fromModel(model) : undefined) ?? fromModel('*') ?? entry.default_surfaces[s]?.[feature];
    return found ? structuredClone(found) : null;
  }

  /**
   * Every (provider, model) whose support of `feature` on `surface` is in `supportIn`. A provider
   * none of whose concrete models qualifies still gives one row with `model: null` when its default
   * qualifies.
   */
  findCompatibleModels(kind: string, feature: string, surface = 'default', supportIn: readonly string[] = ['native', 'emulated', 'conditional']): CompatibleModel[] {
    const k = asKind(kind);
    if (k === null) return [];
    const s = resolveSurface(k, surface);
    if (s === null) return [];
    const rows: CompatibleModel[] = [];
    for (const id of this.providerIds(k)) {
      const entry = this.providers[k].get(id)!;
      let matched = false;
      for (const model of Object.keys(entry.models)) {
        if (model === '*') continue;
        const support = this.getCapabilitySupport(k, feature, id, model, s);
        if (support && supportIn.includes(support.support)) {
          rows.push({ kind: k, provider: id, model, surface: s, feature, support });
          matched = true;
        }
      }
      if (!matched) {
        const support = this.getCapabilitySupport(k, feature, id, null, s);
        if (support && supportIn.includes(support.support)) rows.push({ kind: k, provider: id, model: null, surface: s, feature, support });
      }
    }
    return rows;
  }

  private load(doc: unknown): void {
    const kinds = (doc as { kinds?: unknown })?.kinds;
    if (!isRecord(kinds)) throw new CapabilityDataError('a capability file needs a "kinds" object');
    for (const [kindName, kindValue] of Object.entries(kinds)) {
      const kind = asKind(kindName);
      if (kind === null) throw new CapabilityDataError(`unknown kind "${kindName}" in a capability file`);
      const providers = (kindValue as { providers?: unknown })?.providers;
      if (!isRecord(providers)) throw new CapabilityDataError(`kind "${kind}" needs a "providers" object`);
      for (const [name, value] of Object.entries(providers)) {
        const id = normalizeProvider(kind, name);
        if (id === null || !isRecord(value)) throw new CapabilityDataError(`provider "${name}" of kind "${kind}" is not valid`);
        const where = `${kind}/${name}`;
        const defaults = parseSurfaces(kind, value.default_surfaces ?? {}, where, true);
        const models: ProviderCapabilities['models'] = {};
        for (const [model, modelValue] of Object.entries(isRecord(value.models) ? value.models : {})) {
          models[model] = { model, surfaces: parseSurfaces(kind, isRecord(modelValue) ? (modelValue.surfaces ?? {}) : {}, `${where}/${model}`, false) };
        }
        this.providers[kind].set(id, { kind, provider: id, ...(typeof value.source === 'string' ? { source: value.source } : {}), default_surfaces: defaults, models });
      }
    }
  }
}

/** Validates one surface map; on default surfaces, every feature of the kind is filled (missing: unsupported). */
function parseSurfaces(kind: ProviderKind, raw: unknown, where: string, fill: boolean): SurfaceMap {
  if (!isRecord(raw)) throw new CapabilityDataError(`${where}: surfaces must be an object`);
  const out: SurfaceMap = {};
  const surfaces = fill ? new Set([...CAPABILITY_SURFACES[kind], ...Object.keys(raw)]) : new Set(Object.keys(raw));
  for (const surface of surfaces) {
    const features = raw[surface] ?? {};
    if (!isRecord(features)) throw new CapabilityDataError(`${where}/${surface}: features must be an object`);
    const map: Record<string, CapabilitySupport> = {};
    for (const [feature, value] of Object.entries(features)) map[feature] = parseSupport(value, `${where}/${surface}/${feature}`);
    if (fill) for (const feature of CAPABILITY_FEATURES[kind]) map[feature] ??= { support: 'unsupported', reason: null, metadata: {} };
    out[surface.toLowerCase()] = map;
  }
  return out;
}

function parseSupport(value: unknown, where: string): CapabilitySupport {
  const raw = typeof value === 'string' ? { support: value } : value;
  if (!isRecord(raw) || !SUPPORT_LEVELS.includes(raw.support as SupportLevel)) {
    throw new CapabilityDataError(`${where}: support must be one of ${SUPPORT_LEVELS.join(', ')}`);
  }
  return {
    support: raw.support as SupportLevel,
    reason: typeof raw.reason === 'string' ? raw.reason : null,
    metadata: isRecord(raw.metadata) ? { ...raw.metadata } : {},
  };
}

function resolveSurface(kind: ProviderKind, surface: string | null | undefined): string | null {
  const s = (surface ?? 'default').trim().toLowerCase();
  if (s === '' || s === 'default') return CAPABILITY_SURFACES[kind][0]!;
  return s;
}

function asKind(kind: string): ProviderKind | null {
  const k = typeof kind === 'string' ? kind.trim().toLowerCase() : '';
  return k === 'tts' || k === 'stt' || k === 'cloning' ? k : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let shared: CapabilityRegistry | null = null;

/** The registry over the shipped data files (built once). */
export function defaultCapabilityRegistry(): CapabilityRegistry {
  shared ??= new CapabilityRegistry();
  return shared;
}

/** `get_capability_support` over the shipped data (reference B.8). */
export function getCapabilitySupport(kind: string, feature: string, provider: string, model: string | null = null, surface = 'default'): CapabilitySupport | null {
  return defaultCapabilityRegistry().getCapabilitySupport(kind, feature, provider, model, surface);
}

/** `find_compatible_models` over the shipped data (reference B.8). */
export function findCompatibleModels(kind: string, feature: string, surface = 'default', supportIn: readonly string[] = ['native', 'emulated', 'conditional']): CompatibleModel[] {
  return defaultCapabilityRegistry().findCompatibleModels(kind, feature, surface, supportIn);
}
