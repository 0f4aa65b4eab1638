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

interface ResidentEngine {
  readonly id: string;
  readonly kind: 'local' | 'remote';
  availability(): Promise<{ available: boolean }>;
  preload?(): Promise<void>;
  unload?(): Promise<void>;
  resident?(): boolean;
}

/**
 * Loads a local engine (`ensureReady` raises its unavailable reason) and optionally warms it (B.9);
 * remote engines answer `configured` without loading anything.
 */
export async function preloadEngine(
  component: 'tts_engine' | 'stt_engine',
  engine: ResidentEngine,
  model: string | null,
  ensureReady: () => Promise<void>,
  warm: { run: () => Promise<unknown>; via: string } | undefined,
): Promise<PreloadResult> {
  const local = engine.kind === 'local';
  const base = { component, engine: engine.id, model, local, unloadable: local && !!engine.unload, runtime_info: {} };
  const none = { warmed: false, warm_error: null, warmed_via: null };
  if (!local) return { ...base, ...none, state: 'configured', resident: false, engine_cached: false, engine_cached_before: false, engine_cached_after: false, error: null };
  const before = engine.resident?.() ?? false;
  try {
    await ensureReady();
    await engine.preload?.();
  } catch (error) {
    const after = engine.resident?.() ?? false;
    return { ...base, ...none, state: 'failed', resident: false, engine_cached: after, engine_cached_before: before, engine_cached_after: after, error: errorRecord(error) };
  }
  let warmed = false;
  let warmError: string | null = null;
  if (warm) {
    try {
      await warm.run();
      warmed = true;
    } catch (error) {
      warmError = error instanceof Error ? error.message : String(error);
    }
  }
  const after = engine.resident?.() ?? true;
  return { ...base, state: 'resident', resident: after, engine_cached: after, engine_cached_before: before, engine_cached_after: after, warmed, warm_error: warmError, warmed_via: warmed ? warm!.via : null, error: null };
}

/** Best-effort release (B.9): remote → `configured`; not loaded → `not_loaded`; else `unloaded` or `failed`. */
export async function unloadEngine(component: 'tts_engine' | 'stt_engine', engine: ResidentEngine): Promise<UnloadResult> {
  const local = engine.kind === 'local';
  const unloadable = local && !!engine.unload;
  const base = { component, engine: engine.id, resident: false as const, local, unloadable };
  if (!local) return { ...base, unloaded: false, state: 'configured', error: null };
  if (!(engine.resident?.() ?? false)) return { ...base, unloaded: false, state: 'not_loaded', error: null };
  if (!engine.unload) return { ...base, unloaded: false, state: 'failed', error: { code: 'not_supported', message: `Engine '${engine.id}' cannot be unloaded.` } };
  try {
    await engine.unload();
    return { ...base, unloaded: true, state: 'unloaded', error: null };
  } catch (error) {
    return { ...base, unloaded: false, state: 'failed', error: errorRecord(error) };
  }
}
