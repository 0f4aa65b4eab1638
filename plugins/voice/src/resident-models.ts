/**
 * The integration plugin's residency calls (reference B.9 "Residency (plugin)"):
 * `load_resident_model`, `list_resident_models`, `unload_resident_model`. An entry is
 * `{task, provider, model, state, loaded, resident, local, unloadable, details: {component,
 * backend_id, ...}, error: {code, message} | null, options?, unloaded?}`; refusals are entries with
 * an `error` (`invalid_request`, `not_supported` for remote providers, `not_implemented_yet` for a
 * task that is not speech or transcription), never exceptions, as the reference's listings.
 */
import type { OwnerSettings } from './owner-settings.js';

export interface ResidentRequest {
  /** `tts` (aliases `text_to_speech`, `speech`) or `stt` (`speech_to_text`, `transcription`, `transcribe`, `audio`). */
  task: string;
  /** A provider id; default the configured one. */
  provider?: string;
  model?: string;
  options?: Record<string, unknown>;
}

export interface ResidentEntry {
  task: string;
  provider: string | null;
  model: string | null;
  state: string;
  loaded: boolean;
  resident: boolean;
  local: boolean;
  unloadable: boolean;
  details: Record<string, unknown>;
  error: { code: string; message: string } | null;
  options?: Record<string, unknown>;
  unloaded?: boolean;
}

export const BACKEND_ID = 'voice:default';
const REMOTE = new Set(['hosted', 'compatible']);
const TASKS: Readonly<Record<string, 'tts' | 'stt'>> = {
  tts: 'tts', text_to_speech: 'tts', speech: 'tts',
  stt: 'stt', speech_to_text: 'stt', transcription: 'stt', transcribe: 'stt', audio: 'stt',
};

/** What residency needs of the runtime: the settings, provider names, and a manager per settings. */
export interface ResidencyHost {
  base: OwnerSettings;
  canonical(kind: 'tts' | 'stt', id: string): string | null;
  use<T>(settings: OwnerSettings, fn: (manager: ResidencyManager) => Promise<T>): Promise<T>;
  open(): ResidencyManager[];
}

export interface ResidencyManager {
  preload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>>;
  unload(kind: 'tts' | 'stt'): Promise<Record<string, unknown>>;
  residentComponents(): Array<Record<string, unknown>>;
}

export async function residentCall(host: ResidencyHost, action: 'load' | 'unload', request: ResidentRequest): Promise<ResidentEntry> {
  const rawTask = typeof request?.task === 'string' ? request.task.trim().toLowerCase() : '';
  const refuse = (task: string, provider: string | null, code: string, message: string): ResidentEntry => ({
    task, provider, model: request?.model ?? null, state: 'failed', loaded: false, resident: false, local: false, unloadable: false,
    details: { backend_id: BACKEND_ID }, error: { code, message }, ...(request?.options ? { options: request.options } : {}),
  });
  if (!rawTask) return refuse('', null, 'invalid_request', 'A task is required: tts or stt.');
  const task = TASKS[rawTask];
  if (!task) return refuse(rawTask, null, 'not_implemented_yet', `The voice backend keeps no resident model for task '${rawTask.slice(0, 64)}': only tts and stt.`);
  const configured = task === 'tts' ? host.base.ttsEngine : host.base.sttEngine;
  const named = request.provider?.trim() ? request.provider.trim().toLowerCase() : configured;
  const provider = host.canonical(task, named);
  if (!provider) return refuse(task, named.slice(0, 64), 'invalid_request', `Unknown ${task.toUpperCase()} provider: ${named.slice(0, 64)}.`);
  const options = request.options ? { options: request.options } : {};
  if (REMOTE.has(provider)) {
    return {
      task, provider, model: request.model ?? null, state: 'configured', loaded: false, resident: false, local: false, unloadable: false,
      details: { component: `${task}_engine`, backend_id: BACKEND_ID }, ...options,
      error: { code: 'not_supported', message: `The ${provider} provider is remote: it is configured, never resident here.` },
    };
  }
  const settings: OwnerSettings = task === 'tts'
    ? provider === host.base.ttsEngine ? host.base : { ...host.base, ttsEngine: provider, ttsModel: null }
    : provider === host.base.sttEngine ? host.base : { ...host.base, sttEngine: provider, sttModel: null };
  try {
    const result = await host.use(settings, (manager) => (action === 'load' ? manager.preload(task) : manager.unload(task)));
    const state = String(result.state ?? 'failed');
    const resident = result.resident === true;
    const error = result.error && typeof result.error === 'object' ? (result.error as { code: string; message: string }) : null;
    return {
      task, provider, model: (result.model as string | null | undefined) ?? request.model ?? null, state, loaded: resident, resident,
      local: result.local !== false, unloadable: result.unloadable === true,
      details: { ...result, backend_id: BACKEND_ID }, error, ...options,
      ...(action === 'unload' ? { unloaded: result.unloaded === true } : {}),
    };
  } catch (err) {
    return refuse(task, provider, 'invalid_request', err instanceof Error ? err.message : String(err));
  }
}

/** The models resident in the managers open now, one entry per task, provider and model. */
export function residentList(host: ResidencyHost): ResidentEntry[] {
  const seen = new Map<string, ResidentEntry>();
  for (const manager of host.open()) {
    for (const c of manager.residentComponents()) {
      const task = c.component === 'tts_engine' ? 'tts' : c.component === 'stt_engine' ? 'stt' : 'cloning';
      const provider = String(c.engine);
      const model = (c.model as string | null | undefined) ?? null;
      const key = `${task}\u0000${provider}\u0000${model ?? ''}`;
      if (seen.has(key)) continue;
      seen.set(key, { task, provider, model, state: 'resident', loaded: true, resident: true, local: true, unloadable: true, details: { ...c, backend_id: BACKEND_ID }, error: null });
    }
  }
  return [...seen.values()];
}
