/**
 * What a layer may say (seed §4.5 PUT rules, reference §1.7 write validation) and how a layer is
 * clamped where a door must not refuse (reference §1.5). `validateLayer` refuses with
 * `WorkspaceRefused` (400 `workspace_refused`, nothing saved); `clampLayer` keeps what it can and
 * records each change as a clamp record `{path, asked, got, sentence}`.
 */
import { PROTECTED_KIND_NAMES } from './builtin-refusals.js';
import type { GatewayCaps } from './gateway-caps.js';
import { checkPath, shownPath, type PathCheck } from './path-check.js';
import { MODES, POSTURES, RANK, summaryOf } from './policy-layer.js';
import { WorkspaceRefused, type ClampRecord, type FolderMode, type PolicyLayer } from './workspace-service.js';

export const LAYER_FIELDS = ['posture', 'default_mode', 'folders'] as const;

/** Fields of a GET answer a client may send back unchanged; they are ignored. */
const ECHO_FIELDS = ['ok', 'account', 'session_id', 'configured', 'level', 'summary', 'gateway_summary', 'cap', 'source', 'updated_at', 'updated_by', 'follows'];
const GATEWAY_ECHO_FIELDS = ['builtin_refused', 'builtin_refused_hidden', 'max_attachment_bytes', 'command_sandbox'];

/** Field names of older policy shapes, answered with a hint. */
const LEGACY_FIELDS = ['workspace_access_mode', 'workspace_allowed_paths', 'workspace_ignored_paths', 'allowed_paths', 'refused_paths', 'ignored_paths', 'denied_paths', 'trust_launch_folder', 'launch_folder_trust', 'access_mode'];

export type LayerLevel = 'gateway' | 'account' | 'session' | 'run';

export interface RuleContext {
  caps: GatewayCaps;
  /** The gateway level the layer is capped by (the current one, or the one being written). */
  gateway: PolicyLayer;
  /** The account whose layer this is (its own plane is open to it inside the data folder). */
  account: string;
  maxRows: number;
  maxPathLength: number;
  /**
   * The writer is not an admin: whatever lies inside a protected folder reads as missing (no sentence
   * tells whether a file exists in a credential folder, or where the data folder is).
   */
  hideProtected: boolean;
}

/**
 * `checkPath` as `ctx`'s writer may see it: to a non-admin, a missing path and one inside a
 * protected folder get the same answer (`exists: false`, one sentence true of both).
 */
export async function checkedPath(value: unknown, ctx: Pick<RuleContext, 'caps' | 'account' | 'maxPathLength' | 'hideProtected'>): Promise<PathCheck> {
  const check = await checkPath(value, ctx.maxPathLength);
  if (!ctx.hideProtected || typeof value !== 'string') return check;
  const hidden = check.real !== null && ctx.caps.refusal(check.real, ctx.account) !== null;
  if (!hidden && check.problem !== 'missing') return check;
  return { ...check, problem: 'missing', exists: false, is_dir: false, valid: false, real: null, sentence: `${shownPath(value)} does not exist or is not yours to use: a workspace must be an existing folder you may reach.` };
}

export function refuse(message: string, path: string | null = null): never {
  throw new WorkspaceRefused(message, path);
}

/** The named layer fields of a write body (echoes of a GET ignored); refuses anything else. */
export function namedFields(body: unknown, level: LayerLevel): Partial<Record<(typeof LAYER_FIELDS)[number], unknown>> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) refuse('The workspace policy must be an object {posture, default_mode, folders}; nothing was saved.');
  const record = body as Record<string, unknown>;
  if ('shared_workspace' in record) refuse('shared_workspace no longer exists: list it as a workspace (folders: [{path, mode: "rw"}]). Nothing was saved.');
  const ignored = new Set([...ECHO_FIELDS, ...(level === 'gateway' ? GATEWAY_ECHO_FIELDS : [])]);
  const unknown = Object.keys(record).filter((k) => !(LAYER_FIELDS as readonly string[]).includes(k) && !ignored.has(k));
  if (unknown.length) {
    const legacy = unknown.some((k) => LEGACY_FIELDS.includes(k));
    const hint = legacy ? ' The old access modes, launch-folder trust and separate allowed/refused lists no longer exist: list each folder once in folders with its mode (ro, rw or deny).' : '';
    refuse(`Unknown workspace policy field(s) [${unknown.map((k) => shownPath(k)).join(', ')}]; nothing was saved. Accepted: [${LAYER_FIELDS.join(', ')}].${hint}`);
  }
  const named: Partial<Record<(typeof LAYER_FIELDS)[number], unknown>> = {};
  for (const k of LAYER_FIELDS) if (k in record) named[k] = record[k];
  return named;
}

/**
 * The layer `merged` checked as the seed's PUT rules say, with its paths turned into real paths.
 * `level` gateway: rows are checked against the built-in refusals; other levels: also against the
 * gateway's caps (deny rows are never checked: a refusal never widens).
 */
export async function validateLayer(merged: Record<string, unknown>, level: LayerLevel, ctx: RuleContext): Promise<PolicyLayer> {
  const { posture, default_mode: defaultMode, folders } = merged;
  if (!POSTURES.includes(posture as PolicyLayer['posture'])) refuse(`posture must be 'allowed_only' (deny everything, allow listed workspaces) or 'any_except_denied' (allow everything, refuse listed workspaces), not ${shownValue(posture)}; nothing was saved.`);
  if (defaultMode !== 'ro' && defaultMode !== 'rw') refuse(`default_mode must be 'ro' (read-only) or 'rw' (read & write), not ${shownValue(defaultMode)}; nothing was saved.`);
  if (!Array.isArray(folders)) refuse('folders must be a list of {path, mode} rows; nothing was saved.');
  if (folders.length > ctx.maxRows) refuse(`${folders.length} folder rows are more than the ${ctx.maxRows} a policy level may list (workspaces setting maxRows); nothing was saved.`);
  const layer: PolicyLayer = { posture: posture as PolicyLayer['posture'], default_mode: defaultMode, folders: [] };
  if (level !== 'gateway' && layer.posture === 'any_except_denied' && layer.default_mode === 'rw' && ctx.gateway.posture === 'any_except_denied' && ctx.gateway.default_mode === 'ro') {
    refuse('The gateway allows unlisted workspaces read-only, so the default cannot be read & write.');
  }
  const seen = new Map<string, string>();
  for (const row of folders) {
    if (!row || typeof row !== 'object' || Array.isArray(row)) refuse('Each folder row must be an object {path, mode}; nothing was saved.');
    const { path: given, mode, ...rest } = row as Record<string, unknown>;
    const extra = Object.keys(rest).filter((k) => k !== 'cap' && k !== 'source');
    if (extra.length) refuse(`Unknown folder row field(s) [${extra.map((k) => shownPath(k)).join(', ')}]; nothing was saved. Accepted: [path, mode].`, typeof given === 'string' ? shownPath(given) : null);
    const shown = typeof given === 'string' ? shownPath(given) : null;
    if (!MODES.includes(mode as FolderMode)) refuse(`The mode of ${shown ?? 'a row'} must be 'ro', 'rw' or 'deny', not ${shownValue(mode)}; nothing was saved.`, shown);
    const check = await checkedPath(given, ctx);
    if (!check.valid || !check.real) refuse(`${check.sentence} Nothing was saved.`, shown);
    const real = check.real;
    const twice = seen.get(real);
    if (twice !== undefined) refuse(`'${shown}' is listed twice${twice !== shown ? ` (as '${twice}' too: the same folder)` : ''}; nothing was saved.`, shown);
    seen.set(real, shown!);
    const rowMode = mode as FolderMode;
    if (rowMode !== 'deny') {
      // The gateway level may list any gateway-made (conversation or run) folder; other levels their account's own.
      const refused = level === 'gateway' && ctx.caps.ownerOf(real) !== null ? null : ctx.caps.refusal(real, ctx.account);
      if (refused) {
        const what = refused.kind === 'credentials' ? 'a protected credential directory' : `protected (${PROTECTED_KIND_NAMES[refused.kind]})`;
        const conversation = refused.kind === 'data' ? ' Only a conversation folder of the gateway may be listed from there.' : '';
        refuse(`${shown} is ${what}; it is never a workspace.${conversation}`, shown);
      }
      if (level !== 'gateway') {
        // The row itself lifts the data folder's refusal inside the account's own folders (its own plane).
        const cap = ctx.caps.cap(ctx.gateway, real, ctx.account, null, [{ path: real, mode: rowMode }]).mode;
        if (cap === 'deny') refuse(`${shown} is outside the workspaces the gateway allows (${gatewaySummary(ctx, ctx.hideProtected)}).`, shown);
        if (RANK[rowMode] > RANK[cap]) refuse(`The gateway allows this workspace read-only: ${shown}.`, shown);
      }
    }
    layer.folders.push({ path: real, mode: rowMode });
  }
  return layer;
}

/**
 * A whole layer given at once (a one-off at a run start, the dry run): the write rules, with
 * `default_mode` `rw` and no rows when left out; `posture` is required.
 */
export async function validateWholeLayer(value: unknown, level: LayerLevel, ctx: RuleContext): Promise<PolicyLayer> {
  const named = namedFields(value, level);
  return validateLayer({ default_mode: 'rw', folders: [], ...named }, level, ctx);
}

/**
 * A layer clamped instead of refused (reference §1.5): not an object or an unknown posture → no
 * layer; rows that are not existing absolute folders, duplicates and non-deny rows the gateway
 * refuses are dropped; a mode above its cap is lowered; deny rows are kept.
 */
export async function clampLayer(value: unknown, ctx: RuleContext): Promise<{ layer: PolicyLayer | null; clamped: ClampRecord[] }> {
  const clamped: ClampRecord[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { layer: null, clamped };
  const v = value as Record<string, unknown>;
  if (!POSTURES.includes(v.posture as PolicyLayer['posture'])) return { layer: null, clamped };
  const layer: PolicyLayer = { posture: v.posture as PolicyLayer['posture'], default_mode: v.default_mode === 'ro' ? 'ro' : 'rw', folders: [] };
  if (layer.posture === 'any_except_denied' && ctx.gateway.posture === 'any_except_denied' && ctx.gateway.default_mode === 'ro') layer.default_mode = 'ro';
  const seen = new Set<string>();
  const rows = Array.isArray(v.folders) ? v.folders.slice(0, ctx.maxRows) : [];
  for (const row of rows) {
    const r = (row && typeof row === 'object' ? row : {}) as Record<string, unknown>;
    const shown = typeof r.path === 'string' ? shownPath(r.path) : '(no path)';
    const asked: FolderMode = MODES.includes(r.mode as FolderMode) ? (r.mode as FolderMode) : 'deny';
    const drop = (sentence: string) => clamped.push({ path: shown, asked, got: null, sentence });
    if (!MODES.includes(r.mode as FolderMode)) {
      drop(`The mode of ${shown} must be 'ro', 'rw' or 'deny'; the row was left out.`);
      continue;
    }
    const check = await checkedPath(r.path, ctx);
    if (!check.valid || !check.real) {
      drop(check.sentence);
      continue;
    }
    if (seen.has(check.real)) {
      drop(`'${shown}' is listed twice; the second row was left out.`);
      continue;
    }
    seen.add(check.real);
    if (asked === 'deny') {
      layer.folders.push({ path: check.real, mode: 'deny' });
      continue;
    }
    const cap = ctx.caps.cap(ctx.gateway, check.real, ctx.account, null, [{ path: check.real, mode: asked }]);
    if (cap.mode === 'deny') {
      drop(cap.refused ? `${shown} is protected (${PROTECTED_KIND_NAMES[cap.refused.kind]}); it is never a workspace.` : `${shown} is outside the workspaces the gateway allows (${gatewaySummary(ctx, true)}).`);
      continue;
    }
    const got: FolderMode = RANK[asked] > RANK[cap.mode] ? cap.mode : asked;
    if (got !== asked) clamped.push({ path: shown, asked, got, sentence: `The gateway allows this workspace read-only: ${shown}.` });
    layer.folders.push({ path: check.real, mode: got });
  }
  return { layer, clamped };
}

/** The gateway's summary line as `ctx.account` may see it; `hideData`: rows inside the data folder relative to it (clamp records are a run's: always). */
export function gatewaySummary(ctx: Pick<RuleContext, 'caps' | 'gateway' | 'account'>, hideData: boolean): string {
  const visible = visibleGateway(ctx);
  return summaryOf(hideData ? ctx.caps.masked(visible) : visible);
}

/** The gateway layer as `ctx.account` may see it: rows inside the data folder only from its own plane. */
export function visibleGateway(ctx: Pick<RuleContext, 'caps' | 'gateway' | 'account'>): PolicyLayer {
  return { ...ctx.gateway, folders: ctx.caps.usableRows(ctx.gateway, ctx.account) };
}

function shownValue(value: unknown): string {
  if (typeof value === 'string') return `'${shownPath(value)}'`;
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
