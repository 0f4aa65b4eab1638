/**
 * The voices an account may choose from, read from its voice catalog (reference B.7): its active
 * provider's profiles, models and languages, and every cloned voice of the account. Never throws
 * for a provider that cannot answer (the catalog lists it with a reason).
 */
import type { AccountVoice, ChosenVoice, VoiceRole } from './account-voices.js';
import type { VoiceWebBackend } from './web-backend.js';

export interface VoiceEntry {
  id: string;
  profile_id: string;
  label: string;
  provider: string;
  description?: string;
  params: Record<string, unknown>;
  tags: Record<string, unknown>;
  name: string;
}

export interface VoiceDirectory {
  provider: string;
  profiles: VoiceEntry[];
  clones: VoiceEntry[];
  models: string[];
  languages: string[];
  clonesError: string | null;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function entryOf(raw: unknown, provider: string): VoiceEntry | null {
  const r = record(raw);
  const profileId = text(r.profile_id) ?? text(r.voice_id) ?? text(r.id);
  if (!profileId) return null;
  const id = text(r.voice_id) ?? profileId;
  return {
    id,
    profile_id: profileId,
    label: text(r.label) ?? text(r.display_name) ?? text(r.name) ?? profileId,
    provider: text(r.provider) ?? text(r.engine_id) ?? text(r.engine) ?? provider,
    ...(text(r.description) ? { description: text(r.description) } : {}),
    params: record(r.params),
    tags: record(r.tags),
    name: text(r.name) ?? text(r.label) ?? profileId,
  };
}

export async function voiceDirectory(backend: VoiceWebBackend, account: string, provider: string): Promise<VoiceDirectory> {
  // Unfiltered: a catalog filtered to one provider lists only the clones made with it; remote answers are cached (300 s).
  const catalog = await backend.voiceCatalog(account, {});
  const byProvider = record(record(catalog.tts_catalog_by_provider)[provider]);
  const profilesRaw = byProvider.profiles ?? catalog.profiles;
  // Every cloned voice of the account (a provider's entry lists only the clones made with it).
  const clonesRaw = catalog.cloned_voices ?? byProvider.cloned_voices;
  const entries = (raw: unknown) => list(raw).map((e) => entryOf(e, provider)).filter((e): e is VoiceEntry => e !== null);
  const unavailable = record(record(catalog.unavailable_providers ?? record(catalog.available_providers).unavailable).cloning);
  const cloningIssue = Object.values(unavailable).map((u) => text(record(u).reason)).find(Boolean);
  const profiles = entries(profilesRaw);
  // The catalog names no languages of its own: a provider's languages are those its profiles are tagged with.
  const tagged = profiles.map((p) => text(p.tags.language)).filter((l): l is string => l !== undefined);
  return {
    provider,
    profiles,
    clones: entries(clonesRaw),
    models: list(byProvider.models ?? record(catalog.tts_models_by_provider)[provider]).filter((m): m is string => typeof m === 'string'),
    languages: [...new Set([...list(byProvider.languages ?? catalog.languages).filter((l): l is string => typeof l === 'string'), ...tagged])].sort(),
    clonesError: clonesRaw === undefined ? cloningIssue ?? null : null,
  };
}

/** A cloned voice by id, name or id prefix (reference B.15); an id prefix must name one voice only. */
export function findClone(clones: VoiceEntry[], wanted: string): VoiceEntry | undefined {
  const w = wanted.trim();
  const exact = clones.find((c) => c.id === w) ?? clones.find((c) => c.name === w);
  if (exact) return exact;
  const prefixed = clones.filter((c) => c.id.startsWith(w));
  return w.length >= 4 && prefixed.length === 1 ? prefixed[0] : undefined;
}

export function findProfile(profiles: VoiceEntry[], wanted: string): VoiceEntry | undefined {
  const w = wanted.trim();
  return profiles.find((p) => p.profile_id === w) ?? profiles.find((p) => p.id === w) ?? profiles.find((p) => `${p.provider}:${p.profile_id}` === w);
}

/** The roles a chosen voice is given to. */
export function rolesOf(choice: AccountVoice, voice: ChosenVoice): VoiceRole[] {
  return (['assistant', 'user'] as const).filter((role) => choice.roleVoices[role]?.id === voice.id && choice.roleVoices[role]?.kind === voice.kind);
}
