/**
 * The effective set (seed §2.5, reference §1.3): the chosen layer's rows with their effective mode
 * (min of the gateway cap and the layer's mode) first, then the usable gateway rows not listed; the
 * posture and default that apply; the summary lines.
 */
import type { GatewayCaps } from './gateway-caps.js';
import { visibleGateway } from './layer-rules.js';
import { layerMode, minMode, summaryOf } from './policy-layer.js';
import { inside } from './real-path.js';
import type { FolderMode, PolicyLayer, PolicyLevel } from './workspace-service.js';

export interface EffectiveRow {
  path: string;
  mode: FolderMode;
  cap: FolderMode;
  source: PolicyLevel;
}

export interface EffectiveSet {
  ok: true;
  account: string;
  session_id: string | null;
  level: PolicyLevel;
  posture: PolicyLayer['posture'];
  default_mode: 'ro' | 'rw' | null;
  folders: EffectiveRow[];
  summary: string;
  gateway_summary: string;
}

export interface Chosen {
  level: PolicyLevel;
  layer: PolicyLayer | null;
  /** The account level capping a session or run layer (each level is capped by the one above). */
  cap?: PolicyLayer | null;
}

/** The cap of a real path from the levels above the chosen layer: the gateway's, lowered by the account level's. */
export function capOf(caps: GatewayCaps, gateway: PolicyLayer, upper: PolicyLayer | null | undefined, real: string, account: string, layerRows: PolicyLayer['folders'] = []): FolderMode {
  const cap = caps.cap(gateway, real, account, null, [...layerRows, ...(upper?.folders ?? [])]).mode;
  return upper ? minMode(cap, layerMode(upper, real)) : cap;
}

/** The effective mode of a real path for `account` under `gateway`, the account cap and the chosen layer. */
export function effectiveMode(caps: GatewayCaps, gateway: PolicyLayer, chosen: Chosen, real: string, account: string): FolderMode {
  const cap = capOf(caps, gateway, chosen.cap, real, account, chosen.layer?.folders);
  return chosen.layer ? minMode(cap, layerMode(chosen.layer, real)) : cap;
}

/** `hideData`: rows inside the data folder are shown relative to it (a non-admin never learns where it is). */
export function effectiveSet(caps: GatewayCaps, gateway: PolicyLayer, chosen: Chosen, account: string, shownAccount: string, sessionId: string | null, hideData: boolean): EffectiveSet {
  const { layer, level } = chosen;
  const upper = chosen.cap ?? null;
  const visible = visibleGateway({ caps, gateway, account });
  const folders: EffectiveRow[] = [];
  if (layer) {
    for (const row of layer.folders) {
      const cap = capOf(caps, gateway, upper, row.path, account, layer.folders);
      folders.push({ path: row.path, mode: minMode(cap, row.mode), cap, source: level });
    }
  }
  const reachableListed = folders.filter((r) => r.mode !== 'deny');
  for (const row of visible.folders) {
    if (folders.some((r) => r.path === row.path)) continue;
    const cap = capOf(caps, gateway, upper, row.path, account, layer?.folders);
    const mode = layer ? minMode(cap, layerMode(layer, row.path)) : cap;
    // Under an allowed_only layer, a gateway row this layer does not reach is simply not one of its workspaces.
    if (layer?.posture === 'allowed_only' && mode === 'deny' && !reachableListed.some((r) => inside(row.path, r.path))) continue;
    folders.push({ path: row.path, mode, cap, source: 'gateway' });
  }
  const posture = layer ? layer.posture : gateway.posture;
  let defaultMode: 'ro' | 'rw' | null;
  if (!layer) defaultMode = gateway.posture === 'any_except_denied' ? gateway.default_mode : null;
  else if (layer.posture === 'allowed_only') defaultMode = null;
  else {
    defaultMode = gateway.posture === 'any_except_denied' ? minMode(layer.default_mode, gateway.default_mode) : layer.default_mode;
    if (upper?.posture === 'any_except_denied') defaultMode = minMode(defaultMode, upper.default_mode);
  }
  const shown = (l: PolicyLayer) => (hideData ? caps.masked(l) : l);
  const shownRows = hideData ? folders.map((r) => ({ ...r, path: caps.maskedPath(r.path) })) : folders;
  const summary = layer ? summaryOf(shown({ posture, default_mode: defaultMode ?? layer.default_mode, folders: folders.filter((r) => r.source === level) })) : summaryOf(shown(visible));
  return { ok: true, account: shownAccount, session_id: sessionId, level, posture, default_mode: defaultMode, folders: shownRows, summary, gateway_summary: summaryOf(shown(visible)) };
}
