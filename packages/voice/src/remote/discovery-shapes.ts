/**
 * Reading remote discovery answers (reference B.9, B.12): `/audio/voices` may carry `profiles`,
 * `voice_profiles`, `voices` or `cloned_voices` (lists of strings or objects) or `data` (a list or a
 * nested object); an item's id is `profile_id`, `voice_id`, `id`, `voice` or `name`. `/models` is the
 * OpenAI list shape.
 */
import type { VoiceProfile } from '../contracts.js';

const LIST_KEYS = ['profiles', 'voice_profiles', 'voices', 'cloned_voices'] as const;
const ID_KEYS = ['profile_id', 'voice_id', 'id', 'voice', 'name'] as const;
/** Remote lists are untrusted: only this many items are read. */
const MAX_ITEMS = 1000;
const MAX_ID_CHARS = 200;

/** Profiles found in a voice-list answer, deduplicated by id, in answer order. */
export function profilesFromVoiceAnswer(engineId: string, answer: unknown, depth = 0): VoiceProfile[] {
  const out = new Map<string, VoiceProfile>();
  const add = (items: unknown, kind: string): void => {
    if (!Array.isArray(items)) return;
    for (const item of items.slice(0, MAX_ITEMS)) {
      const profile = profileOf(engineId, item, kind);
      if (profile && !out.has(profile.profile_id) && out.size < MAX_ITEMS) out.set(profile.profile_id, profile);
    }
  };
  if (Array.isArray(answer)) add(answer, 'voice');
  else if (answer && typeof answer === 'object') {
    const record = answer as Record<string, unknown>;
    for (const key of LIST_KEYS) add(record[key], key === 'cloned_voices' ? 'clone' : 'voice');
    const data = record.data;
    if (Array.isArray(data)) add(data, 'voice');
    else if (data && typeof data === 'object' && depth < 2) {
      for (const profile of profilesFromVoiceAnswer(engineId, data, depth + 1)) if (!out.has(profile.profile_id)) out.set(profile.profile_id, profile);
    }
  }
  return [...out.values()];
}

function profileOf(engineId: string, item: unknown, kind: string): VoiceProfile | undefined {
  if (typeof item === 'string') return item.trim() && item.length <= MAX_ID_CHARS ? { engine_id: engineId, profile_id: item.trim(), label: item.trim(), params: {}, tags: { kind } } : undefined;
  if (!item || typeof item !== 'object') return undefined;
  const record = item as Record<string, unknown>;
  let id: string | undefined;
  for (const key of ID_KEYS) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') {
      id = value.trim();
      break;
    }
  }
  if (!id || id.length > MAX_ID_CHARS) return undefined;
  const label = typeof record.label === 'string' ? record.label : typeof record.name === 'string' ? record.name : id;
  const description = typeof record.description === 'string' ? record.description : undefined;
  return { engine_id: engineId, profile_id: id, label: label.slice(0, MAX_ID_CHARS), ...(description ? { description: description.slice(0, 1000) } : {}), params: { voice: id }, tags: { kind } };
}

/** Model ids of a `/models` answer (`{data:[{id}]}`, `{models:[…]}` or a bare list), filtered by `keep`. */
export function modelIdsFromAnswer(answer: unknown, keep: (id: string, item: Record<string, unknown>) => boolean): string[] {
  const list = Array.isArray(answer)
    ? answer
    : answer && typeof answer === 'object'
      ? ((answer as Record<string, unknown>).data ?? (answer as Record<string, unknown>).models)
      : undefined;
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const item of list.slice(0, MAX_ITEMS)) {
    const record: Record<string, unknown> = typeof item === 'string' ? { id: item } : item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const id = typeof record.id === 'string' ? record.id : typeof record.name === 'string' ? record.name : undefined;
    if (id && id.length <= MAX_ID_CHARS && !out.includes(id) && keep(id, record)) out.push(id);
  }
  return out;
}

/** A model counts as TTS when its id says `tts` or `speech`, or its kind/type/modalities do (B.9). */
export function isTtsModel(id: string, item: Record<string, unknown>): boolean {
  return /tts|speech/i.test(id) || saysSo(item, /tts|speech|audio_out/i);
}

/** A model counts as STT when its id says `transcribe`, `whisper`, `stt` or `asr`, or its kind/type does. */
export function isSttModel(id: string, item: Record<string, unknown>): boolean {
  return /transcri|whisper|stt|asr/i.test(id) || saysSo(item, /stt|asr|transcri/i);
}

function saysSo(item: Record<string, unknown>, pattern: RegExp): boolean {
  for (const key of ['kind', 'type', 'modalities', 'task', 'tasks']) {
    const value = item[key];
    if (typeof value === 'string' && pattern.test(value)) return true;
    if (Array.isArray(value) && value.some((v) => typeof v === 'string' && pattern.test(v))) return true;
  }
  return false;
}
