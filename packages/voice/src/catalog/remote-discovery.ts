/**
 * What a remote OpenAI-shaped server says it has (reference B.9 "Remote discovery paths"): its model
 * ids from `GET /models`, split into speech and transcription models, and its voices from
 * `GET /audio/voices` (a compatible server may answer on `/voices` instead).
 */
import { VoiceError } from '../contracts.js';
import { remoteJson, type RemoteEndpoint } from './remote-http.js';

/** One voice a remote lists (`profile_id`, `voice_id`, `id`, `voice` or `name` is its id). */
export interface RemoteVoice {
  id: string;
  label: string;
  /** `clone` when the remote listed it under `cloned_voices`. */
  kind: 'voice' | 'clone';
  raw: Record<string, unknown>;
}

export interface RemoteModels {
  tts: string[];
  stt: string[];
  all: string[];
}

/** Most entries kept from one listing; a remote that lists more is cut there. */
const MAX_LISTED = 1000;
const MAX_ID_CHARS = 200;

export async function probeRemoteModels(endpoint: RemoteEndpoint, timeoutMs: number, path = '/models'): Promise<RemoteModels> {
  const body = await remoteJson(endpoint, path, { timeoutMs });
  const items = listOf(body, ['data', 'models']);
  const tts: string[] = [];
  const stt: string[] = [];
  const all: string[] = [];
  for (const item of items.slice(0, MAX_LISTED)) {
    const id = idOf(item, ['id', 'model', 'name']);
    if (id === null) continue;
    all.push(id);
    const kind = modelKind(id, item);
    if (kind === 'tts') tts.push(id);
    if (kind === 'stt') stt.push(id);
  }
  return { tts: unique(tts), stt: unique(stt), all: unique(all) };
}

/**
 * The remote's voices. Tries each path in turn and answers the first that works; when none does,
 * throws the last failure (the provider is then unreachable for voices).
 */
export async function probeRemoteVoices(endpoint: RemoteEndpoint, timeoutMs: () => number, paths: readonly string[]): Promise<RemoteVoice[]> {
  let last: unknown = new VoiceError('No voice listing path is configured.', 502, 'remote_unreachable');
  for (const path of paths) {
    const ms = timeoutMs();
    if (ms <= 0) break;
    try {
      return parseVoices(await remoteJson(endpoint, path, { timeoutMs: ms }));
    } catch (err) {
      last = err;
      // Only "this path does not exist here" moves on to the next path; a timeout ends the probe.
      if (!(err instanceof VoiceError) || err.code !== 'remote_error') break;
    }
  }
  throw last;
}

/** Voice answers may carry `profiles`, `voice_profiles`, `voices`, `cloned_voices` or `data`. */
export function parseVoices(body: unknown): RemoteVoice[] {
  const out = new Map<string, RemoteVoice>();
  const add = (items: unknown[], kind: RemoteVoice['kind']) => {
    for (const item of items) {
      if (out.size >= MAX_LISTED) return;
      const id = idOf(item, ['profile_id', 'voice_id', 'id', 'voice', 'name']);
      if (id === null || out.has(id)) continue;
      const raw = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
      const label = typeof raw.label === 'string' ? raw.label : typeof raw.name === 'string' ? raw.name : id;
      out.set(id, { id, label: label.slice(0, MAX_ID_CHARS), kind, raw: typeof item === 'object' ? raw : { id } });
    }
  };
  if (Array.isArray(body)) add(body, 'voice');
  else if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['profiles', 'voice_profiles', 'voices']) if (Array.isArray(record[key])) add(record[key] as unknown[], 'voice');
    if (Array.isArray(record.cloned_voices)) add(record.cloned_voices, 'clone');
    if (Array.isArray(record.data)) add(record.data, 'voice');
    else if (record.data && typeof record.data === 'object') for (const voice of parseVoices(record.data)) if (!out.has(voice.id)) out.set(voice.id, voice);
  }
  return [...out.values()];
}

/** A model counts as speech when its id says `tts`/`speech` or its kind/type/modalities say so. */
function modelKind(id: string, item: unknown): 'tts' | 'stt' | null {
  const lower = id.toLowerCase();
  const record = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
  const declared = [record.kind, record.type, record.task, ...(Array.isArray(record.modalities) ? record.modalities : [])]
    .filter((v): v is string => typeof v === 'string')
    .map((v) => v.toLowerCase());
  if (lower.includes('tts') || lower.includes('speech') || declared.some((v) => ['tts', 'text-to-speech', 'speech', 'audio_out'].includes(v))) return 'tts';
  if (['transcribe', 'whisper', 'stt', 'asr'].some((w) => lower.includes(w)) || declared.some((v) => ['stt', 'asr', 'speech-to-text', 'transcription', 'audio_in'].includes(v))) return 'stt';
  return null;
}

function listOf(body: unknown, keys: string[]): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object') {
    for (const key of keys) {
      const value = (body as Record<string, unknown>)[key];
      if (Array.isArray(value)) return value;
    }
  }
  return [];
}

function idOf(item: unknown, keys: string[]): string | null {
  if (typeof item === 'string') return clean(item);
  if (!item || typeof item !== 'object') return null;
  for (const key of keys) {
    const value = (item as Record<string, unknown>)[key];
    if (typeof value === 'string' && clean(value) !== null) return clean(value);
  }
  return null;
}

/** Ids are kept short and printable: a remote's answer ends up in every client's listing. */
function clean(value: string): string | null {
  const id = value.trim();
  return id !== '' && id.length <= MAX_ID_CHARS && ![...id].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f) ? id : null;
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
