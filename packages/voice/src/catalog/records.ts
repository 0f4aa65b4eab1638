/**
 * The voice entries listings answer (reference B.7 "Voice and clone records"): one shape for a local
 * engine's profile, a voice a remote listed, and a cloned voice from the store.
 */
import type { VoiceProfile } from '../contracts.js';
import type { ClonedVoiceRecord } from '../cloning/voice-record.js';
import type { RemoteVoice } from './remote-discovery.js';

export interface VoiceEntry {
  id: string;
  voice_id: string;
  profile_id: string;
  label: string;
  display_name: string;
  name: string;
  kind: 'profile' | 'voice' | 'clone';
  provider: string;
  engine_id: string;
  engine: string;
  model?: string;
  description?: string;
  tags: Record<string, unknown>;
  params: Record<string, unknown>;
}

export function profileEntry(provider: string, profile: VoiceProfile, model?: string | null): VoiceEntry {
  return {
    id: profile.profile_id,
    voice_id: profile.profile_id,
    profile_id: profile.profile_id,
    label: profile.label || profile.profile_id,
    display_name: profile.label || profile.profile_id,
    name: profile.label || profile.profile_id,
    kind: 'profile',
    provider,
    engine_id: provider,
    engine: provider,
    ...(model ? { model } : {}),
    ...(profile.description ? { description: profile.description } : {}),
    tags: { ...(profile.tags ?? {}), provider },
    params: { ...profile.params },
  };
}

/** A voice a remote listed, or one it knows without being asked (the hosted built-ins, configured ids). */
export function remoteVoiceEntry(provider: string, voice: RemoteVoice | string, model?: string | null): VoiceEntry {
  const v: RemoteVoice = typeof voice === 'string' ? { id: voice, label: voice, kind: 'voice', raw: {} } : voice;
  return {
    id: v.id,
    voice_id: v.id,
    profile_id: v.id,
    label: v.label,
    display_name: v.label,
    name: v.label,
    kind: v.kind,
    provider,
    engine_id: provider,
    engine: provider,
    ...(model ? { model } : {}),
    tags: { provider, source: typeof voice === 'string' ? 'configured' : 'remote_discovery' },
    params: { ...v.raw },
  };
}

export function cloneEntry(record: ClonedVoiceRecord): VoiceEntry {
  return {
    id: record.voice_id,
    voice_id: record.voice_id,
    profile_id: record.voice_id,
    label: record.name,
    display_name: record.name,
    name: record.name,
    kind: 'clone',
    provider: record.engine,
    engine_id: record.engine,
    engine: record.engine,
    tags: { provider: record.engine, source: 'keel_clone_store' },
    params: structuredClone(record) as unknown as Record<string, unknown>,
  };
}
