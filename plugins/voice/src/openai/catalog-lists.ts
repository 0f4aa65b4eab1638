/**
 * The OpenAI-style lists of the listing routes, computed from a voice catalog (reference B.7): the
 * catalog's own fields stay, `object: "list"` and `data` are added. A model's `id` is
 * `provider:model`, which `POST /v1/audio/speech` and `/v1/audio/transcriptions` accept as `model`.
 */

type Catalog = Record<string, unknown>;
type Row = Record<string, unknown>;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `{object: "list", data: [profiles and clones], ...catalog}` (reference B.15's `/v1/audio/voices`). */
export function voiceList(catalog: Catalog): Catalog {
  const data = list(catalog.voices).map((v) => {
    const entry = record(v);
    const clone = entry.kind === 'clone';
    return { object: clone ? 'voice' : 'voice.profile', ...entry, kind: clone ? 'clone' : 'profile', voice: entry.voice_id ?? entry.id };
  });
  return { object: 'list', data, ...catalog };
}

const FIELDS = {
  tts: ['tts_models', 'tts_models_by_provider', 'tts_model_variants', 'tts_catalog_by_provider', 'tts_formats_by_provider', 'unreachable_tts_providers'],
  stt: ['stt_models', 'stt_models_by_provider', 'stt_engine_variants', 'stt_catalog_by_provider', 'stt_formats_by_provider'],
} as const;

/** `{object: "list", data: [{id: "provider:model", ...}], <kind>_* fields, available_providers, unavailable_providers}`. */
export function modelList(kind: 'tts' | 'stt', catalog: Catalog, provider?: string): Catalog {
  const byProvider = record(catalog[`${kind}_catalog_by_provider`]);
  const data: Row[] = [];
  for (const [p, value] of Object.entries(byProvider)) {
    if (provider && p !== provider) continue;
    const entry = record(value);
    for (const model of list(entry.models)) {
      if (typeof model !== 'string') continue;
      data.push({
        id: `${p}:${model}`, object: 'model', owned_by: p, provider: p, model, kind,
        formats: list(entry.formats),
        ...(entry.unreachable === true ? { unreachable: true } : {}),
      });
    }
  }
  const out: Catalog = { object: 'list', data };
  for (const field of FIELDS[kind]) if (field in catalog) out[field] = catalog[field];
  for (const field of ['available_providers', 'unavailable_providers', 'unavailable_reason', 'provider_id', 'active_model']) if (field in catalog) out[field] = catalog[field];
  return out;
}
