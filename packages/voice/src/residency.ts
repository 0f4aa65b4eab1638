/** Result shapes of the residency calls (reference B.9 "Manager result shapes"). */

export interface PreloadResult {
  component: 'tts_engine' | 'stt_engine';
  engine: string;
  model: string | null;
  state: 'resident' | 'configured' | 'failed';
  resident: boolean;
  local: boolean;
  unloadable: boolean;
  engine_cached: boolean;
  engine_cached_before: boolean;
  engine_cached_after: boolean;
  warmed: boolean;
  warm_error: string | null;
  warmed_via: string | null;
  runtime_info: Record<string, unknown>;
  /** Why the preload failed (state `failed`). */
  error?: { code: string; message: string } | null;
}

export interface UnloadResult {
  component: 'tts_engine' | 'stt_engine';
  engine: string;
  unloaded: boolean;
  state: 'unloaded' | 'failed' | 'configured' | 'not_loaded';
  resident: false;
  local: boolean;
  unloadable: boolean;
  error: { code: string; message: string } | null;
}

/** One entry of `listResidentComponents`. */
export interface ResidentComponent {
  component: 'tts_engine' | 'stt_engine' | 'cloning_engine';
  engine: string;
  model: string | null;
  resident: true;
  local: true;
}

export function errorRecord(error: unknown): { code: string; message: string } {
  const code = error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'failed';
  return { code, message: error instanceof Error ? error.message : String(error) };
}
