/**
 * One level of the workspace policy (reference gateway-surfaces §1.1–1.3, §1.5): its posture, its
 * default mode and its rows, the summary line, and the row rule (the longest real-path prefix
 * wins, refused rows included). Rows are stored as real paths, so a row's path is its real path.
 */
import type { FolderMode, PolicyLayer, Posture } from './workspace-service.js';
import { inside } from './real-path.js';

export const POSTURES: readonly Posture[] = ['any_except_denied', 'allowed_only'];
export const MODES: readonly FolderMode[] = ['ro', 'rw', 'deny'];

export const POSTURE_LABELS: Record<Posture, string> = {
  allowed_only: 'Deny everything, allow listed workspaces',
  any_except_denied: 'Allow everything, refuse listed workspaces',
};

/** Mode order deny < ro < rw. */
export const RANK: Record<FolderMode, number> = { deny: 0, ro: 1, rw: 2 };

/** The lower of two modes. */
export function minMode<M extends FolderMode>(a: M, b: M): M {
  return RANK[a] <= RANK[b] ? a : b;
}

/** A fresh gateway: everything read & write, no rows. */
export const FRESH_GATEWAY: PolicyLayer = { posture: 'any_except_denied', default_mode: 'rw', folders: [] };

/** The default account layer of a non-admin account (setting `nonAdmin: own_folders`): only the run's own folder. */
export const OWN_FOLDER_LAYER: PolicyLayer = { posture: 'allowed_only', default_mode: 'rw', folders: [] };

/**
 * A stored or configured layer read leniently (reference §1.1): an unknown posture reads as
 * `any_except_denied`, a default other than `ro` as `rw`; malformed rows are skipped.
 */
export function readLayer(value: unknown): PolicyLayer {
  const v = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  const rows = Array.isArray(v.folders) ? v.folders : [];
  return {
    posture: v.posture === 'allowed_only' ? 'allowed_only' : 'any_except_denied',
    default_mode: v.default_mode === 'ro' ? 'ro' : 'rw',
    folders: rows
      .filter((r): r is { path: string; mode: FolderMode } => !!r && typeof r === 'object' && typeof (r as { path?: unknown }).path === 'string' && (r as { path: string }).path.startsWith('/') && MODES.includes((r as { mode: FolderMode }).mode))
      .map((r) => ({ path: r.path, mode: r.mode })),
  };
}

/** The summary line (reference §1.5), byte-identical on every surface. */
export function summaryOf(layer: PolicyLayer): string {
  const head = POSTURE_LABELS[layer.posture] + (layer.posture === 'any_except_denied' ? ` (${layer.default_mode})` : '');
  return [head, ...layer.folders.map((f) => `${f.path} (${f.mode === 'deny' ? 'refused' : f.mode})`)].join(' \u00b7 ');
}

/** The row of `rows` that decides for the real path `real`: the longest containing one; on a tie the stricter. */
export function decidingRow<R extends { path: string; mode: FolderMode }>(rows: readonly R[], real: string): R | null {
  let best: R | null = null;
  for (const row of rows) {
    if (!inside(real, row.path)) continue;
    if (!best || row.path.length > best.path.length || (row.path.length === best.path.length && RANK[row.mode] < RANK[best.mode])) best = row;
  }
  return best;
}

/** A layer's own mode for a real path (§1.3): its row rule, else its default under any_except_denied, else deny. */
export function layerMode(layer: PolicyLayer, real: string): FolderMode {
  const row = decidingRow(layer.folders, real);
  if (row) return row.mode;
  return layer.posture === 'any_except_denied' ? layer.default_mode : 'deny';
}
