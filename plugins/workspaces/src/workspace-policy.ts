/**
 * The `workspaces.service`: the four policy levels put together for runs (reference
 * gateway-surfaces §1.2–1.6). A run start resolves one-off → session → account → gateway (exactly
 * one layer, combined with the gateway's caps), makes the run's folder with its ownership marker
 * and records what the run works under, here (LMDB, by root run id), where no flow can change it.
 * Every later check is judged on real paths with the CURRENT gateway level and built-in refusals.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import { PROTECTED_KIND_NAMES } from './builtin-refusals.js';
import { effectiveMode, effectiveSet, type Chosen, type EffectiveSet } from './effective-set.js';
import { MARKER_FILE, type GatewayCaps } from './gateway-caps.js';
import { checkedPath, clampLayer, gatewaySummary, refuse, validateWholeLayer, visibleGateway, type RuleContext } from './layer-rules.js';
import { checkPath, shownPath } from './path-check.js';
import { OWN_FOLDER_LAYER, layerMode, minMode, readLayer, summaryOf } from './policy-layer.js';
import type { PolicyStore } from './policy-store.js';
import { inside, realPathOf } from './real-path.js';
import type { Access, ClampRecord, FolderMode, PolicyLayer, RunStartWorkspace, RunWorkspace, WorkspaceService } from './workspace-service.js';

export type NonAdminDefault = 'own_folders' | 'gateway_policy';

export interface WorkspacesSettings {
  /** The gateway level until an admin stores one with PUT /workspace/policy. */
  gatewayPolicy: PolicyLayer;
  /** The account level of a non-admin account without one: `own_folders` (only the run's folder) or `gateway_policy`. */
  nonAdmin: NonAdminDefault;
  /** Largest attachment (read-only in the gateway policy; the artifacts plugin enforces it). */
  maxAttachmentBytes: number;
  /** Rows one level may list. */
  maxRows: number;
  /** Characters a workspace path may have. */
  maxPathLength: number;
}

const NON_ADMIN_HINT = ' Runs of a non-admin account reach only their own workspace folder until an admin sets the account\'s workspace policy (PUT /api/gateway/workspace/policy/{account}; workspaces setting nonAdmin).';

/** Run ids become folder names as they are when plain, else by digest (never a path of their own). */
const PLAIN_ID = /^[A-Za-z0-9_-]{1,128}$/;

export class WorkspacePolicy implements WorkspaceService {
  private readonly runs: Database<RunWorkspace, string>;
  /** Records queued by a `commit: 'with_caller'` start and not yet durable (LMDB shows a put only once committed). */
  private readonly unwritten = new Map<string, { ws: RunWorkspace; written: Promise<void> }>();

  constructor(
    readonly dataDir: string,
    readonly caps: GatewayCaps,
    readonly store: PolicyStore,
    readonly settings: WorkspacesSettings,
    storage: PluginStorage,
  ) {
    this.runs = storage.openDB<RunWorkspace, string>('runs');
  }

  get maxAttachmentBytes(): number {
    return this.settings.maxAttachmentBytes;
  }

  /** The rule context for `account`'s layers under the current gateway level. */
  /** `admin`: the writer (or the run's owner) is an admin; for anyone else protected folders read as missing. */
  rules(account: string, admin: boolean, gateway: PolicyLayer = this.store.gateway()): RuleContext {
    return { caps: this.caps, gateway, account, maxRows: this.settings.maxRows, maxPathLength: this.settings.maxPathLength, hideProtected: !admin };
  }

  /** The account level of `account`: the admin's choice, else the non-admin default, else none. */
  accountLevel(account: string, admin: boolean): { layer: PolicyLayer; nonAdminDefault: boolean } | null {
    const own = this.store.account(account);
    if (own) return { layer: readLayer(own), nonAdminDefault: false };
    if (!admin && this.settings.nonAdmin === 'own_folders') return { layer: OWN_FOLDER_LAYER, nonAdminDefault: true };
    return null;
  }

  /**
   * The layer a run of `account` starts from without a one-off: session, else account, else the
   * non-admin default, else none. A session layer is capped by the account level: a user's own
   * choice never reaches past what an admin allows his account (the non-admin default above all).
   */
  chosen(account: string, sessionId: string | null, admin: boolean): Chosen & { nonAdminDefault: boolean } {
    const accountLevel = this.accountLevel(account, admin);
    const session = sessionId ? this.store.session(account, sessionId) : null;
    if (session) return { level: 'session', layer: readLayer(session), cap: accountLevel?.layer ?? null, nonAdminDefault: false };
    if (accountLevel) return { level: 'account', layer: accountLevel.layer, cap: null, nonAdminDefault: accountLevel.nonAdminDefault };
    return { level: 'gateway', layer: null, cap: null, nonAdminDefault: false };
  }

  conversationFolder(account: string, sessionId: string): string {
    const digest = createHash('sha256').update(`${account}\u0000${sessionId}`).digest('hex').slice(0, 32);
    return path.join(this.caps.workspacesDir, `session-${digest}`);
  }

  runFolder(rootRunId: string): string {
    const name = PLAIN_ID.test(rootRunId) ? rootRunId : createHash('sha256').update(rootRunId).digest('hex').slice(0, 32);
    return path.join(this.caps.workspacesDir, `run-${name}`);
  }

  maskedPath(real: string): string {
    return this.caps.maskedPath(real);
  }

  isProtected(realPath: string): boolean {
    return this.caps.isProtected(realPath);
  }

  /** What a root run was recorded to work under, or null (a run from before this plugin, or none). */
  recorded(rootRunId: string): RunWorkspace | null {
    return this.unwritten.get(rootRunId)?.ws ?? this.runs.get(rootRunId) ?? null;
  }

  recordWritten(rootRunId: string): Promise<void> {
    return this.unwritten.get(rootRunId)?.written ?? Promise.resolve();
  }

  async resolveRunStart(input: RunStartWorkspace): Promise<RunWorkspace> {
    const { account, admin, door } = input;
    const gateway = this.store.gateway();
    const ctx = this.rules(account, admin, gateway);
    const clamped: ClampRecord[] = [];
    let chosen: Chosen = this.chosen(account, input.sessionId, admin);
    // A run's own layer (one-off, narrowing) is capped by the account level, as a session's is.
    const accountCap = this.accountLevel(account, admin)?.layer ?? null;
    const oneOff = input.oneOff;
    const useDefault = oneOff !== null && typeof oneOff === 'object' && (oneOff as { configured?: unknown }).configured === false && Object.keys(oneOff).length === 1;
    if (oneOff !== undefined && oneOff !== null && !useDefault) {
      if (door === 'refuse') {
        const layer = await validateWholeLayer(oneOff, 'run', ctx);
        chosen = { level: 'run', layer, cap: accountCap };
      } else {
        const result = await clampLayer(oneOff, ctx);
        clamped.push(...result.clamped);
        if (result.layer) chosen = { level: 'run', layer: result.layer, cap: accountCap };
      }
    }
    // A stored layer was checked when written; a gateway tightened since clamps it (never widens).
    if (chosen.level !== 'run' && chosen.layer) chosen = { ...chosen, layer: (await this.clampStored(chosen.layer, ctx, clamped)) ?? chosen.layer };
    if (input.accessMode !== undefined && input.accessMode !== null) {
      if (input.accessMode === 'workspace_only') chosen = { level: 'run', layer: OWN_FOLDER_LAYER, cap: null };
      else if (input.accessMode !== 'workspace_or_allowed' && door === 'refuse') {
        refuse(input.accessMode === 'all_except_ignored' ? 'workspace_access_mode all_except_ignored is not accepted: the gateway decides whether a run may reach any folder (see GET /api/gateway/workspace/effective/me).' : `workspace_access_mode must be 'workspace_only' or 'workspace_or_allowed'.`);
      }
    }
    if (input.legacyAllowedPaths !== undefined && input.legacyAllowedPaths !== null && input.legacyAllowedPaths !== '') {
      chosen = { level: 'run', layer: await this.narrowed(input.legacyAllowedPaths, ctx, chosen, clamped), cap: accountCap };
    }
    const folder = await this.folderOf(input, ctx, chosen, door, clamped);
    // What a run is told never names the data folder (its own rows there are shown relative to it).
    const summary = summaryOf(this.caps.masked(chosen.layer ?? visibleGateway(ctx)));
    const ws: RunWorkspace = { level: chosen.level, summary, ...(clamped.length ? { clamped } : {}), kind: folder.kind, path: folder.path, layer: chosen.layer, cap: chosen.cap ?? null };
    const put = this.runs.put(input.rootRunId, ws);
    if (input.commit !== 'with_caller') {
      await put;
      return ws;
    }
    const written = put.then(
      () => void this.unwritten.delete(input.rootRunId),
      (err: unknown) => {
        this.unwritten.delete(input.rootRunId);
        throw err;
      },
    );
    // Whoever awaits recordWritten sees a failure; nobody waiting must not make it an unhandled rejection.
    written.catch(() => undefined);
    this.unwritten.set(input.rootRunId, { ws, written });
    return ws;
  }

  /** A stored layer under the current gateway: null when nothing changed. */
  private async clampStored(layer: PolicyLayer, ctx: RuleContext, clamped: ClampRecord[]): Promise<PolicyLayer | null> {
    if (layer === OWN_FOLDER_LAYER) return null;
    const result = await clampLayer(layer, ctx);
    if (!result.clamped.length) return null;
    clamped.push(...result.clamped);
    return result.layer;
  }

  /** Legacy `workspace_allowed_paths` may only narrow: the entries the run can reach, at their effective modes. */
  private async narrowed(value: unknown, ctx: RuleContext, chosen: Chosen, clamped: ClampRecord[]): Promise<PolicyLayer> {
    const entries = Array.isArray(value) ? value : typeof value === 'string' ? value.split('\n').map((s) => s.trim()).filter(Boolean) : [value];
    const rows: PolicyLayer['folders'] = [];
    for (const entry of entries.slice(0, this.settings.maxRows)) {
      const check = await checkedPath(entry, ctx);
      const shown = typeof entry === 'string' ? shownPath(entry) : '(not a path)';
      if (!check.valid || !check.real) {
        clamped.push({ path: shown, asked: 'rw', got: null, sentence: check.sentence });
        continue;
      }
      const mode = effectiveMode(this.caps, ctx.gateway, chosen, check.real, ctx.account);
      if (mode === 'deny') {
        clamped.push({ path: shown, asked: 'rw', got: null, sentence: `${shown} is not one of this run's workspaces; workspace_allowed_paths may only narrow them.` });
        continue;
      }
      if (!rows.some((r) => r.path === check.real)) rows.push({ path: check.real, mode });
    }
    return { posture: 'allowed_only', default_mode: 'rw', folders: rows };
  }

  /** The run's root folder: a launch folder (`workspace_root`), else the conversation folder, else the run's own. */
  private async folderOf(input: RunStartWorkspace, ctx: RuleContext, chosen: Chosen, door: 'refuse' | 'clamp', clamped: ClampRecord[]): Promise<{ kind: RunWorkspace['kind']; path: string }> {
    const root = input.workspaceRoot;
    if (root !== undefined && root !== null && root !== '') {
      const refusal = await this.launchFolderRefusal(root, ctx, chosen);
      if (!refusal) {
        const real = (await checkPath(root, this.settings.maxPathLength)).real!;
        // The account's own gateway-made folder is used as what it is.
        if (this.caps.ownerOf(real) === input.account && this.caps.gatewayFolderOf(real) === real) {
          return { kind: path.basename(real).startsWith('session-') ? 'session' : 'run', path: path.relative(this.dataDir, real) };
        }
        return { kind: 'launch_folder', path: real };
      }
      if (door === 'refuse') refuse(refusal, typeof root === 'string' ? shownPath(root) : null);
      clamped.push({ path: typeof root === 'string' ? shownPath(root) : '(not a path)', asked: 'rw', got: null, sentence: refusal });
    }
    const [kind, folder] = input.sessionId ? (['session', this.conversationFolder(input.account, input.sessionId)] as const) : (['run', this.runFolder(input.rootRunId)] as const);
    this.makeFolder(folder, kind, input);
    return { kind, path: path.relative(this.dataDir, folder) };
  }

  /** Why `workspace_root` cannot be the run's root, or null. */
  private async launchFolderRefusal(root: unknown, ctx: RuleContext, chosen: Chosen): Promise<string | null> {
    const { gateway, account } = ctx;
    // The caller's own conversation folder is checked as what it is (it lies in the data folder, which hides it from a non-admin otherwise).
    const check = await checkPath(root, this.settings.maxPathLength);
    const own = check.real !== null && this.caps.ownerOf(check.real) === account && this.caps.gatewayFolderOf(check.real) === check.real;
    if (!own) {
      const seen = await checkedPath(root, ctx);
      if (!seen.valid || !seen.real) return `workspace_root: ${seen.sentence}`;
    }
    if (!check.valid || !check.real) return `workspace_root: ${check.sentence}`;
    const shown = shownPath(root as string);
    if (inside(check.real, this.dataDir)) {
      if (!own) return `${shown} is inside the gateway's data directory; a run's workspace_root may be there only when it is your own conversation folder.`;
      return null;
    }
    const cap = this.caps.cap(gateway, check.real, account, null, [...(chosen.layer?.folders ?? []), ...(chosen.cap?.folders ?? [])]);
    if (cap.refused) return `${shown} is protected (${PROTECTED_KIND_NAMES[cap.refused.kind]}); it is never a workspace.`;
    if (cap.mode === 'deny') return `${shown} is outside the workspaces the gateway allows (${gatewaySummary(ctx, ctx.hideProtected)}).`;
    if (effectiveMode(this.caps, gateway, chosen, check.real, account) === 'deny') {
      const by = chosen.cap && layerMode(chosen.cap, check.real) === 'deny' ? chosen.cap : chosen.layer;
      const summary = by ?? visibleGateway(ctx);
      return `${shown} is not one of this run's workspaces (${summaryOf(ctx.hideProtected ? this.caps.masked(summary) : summary)}).`;
    }
    return null;
  }

  /**
   * Creates a gateway-made folder with its ownership marker (idempotent). Synchronous: a folder and
   * a small file cost less done here than handed to libuv's threads and back (a quarter of the CPU,
   * measured), and a start makes one.
   */
  private makeFolder(folder: string, kind: 'session' | 'run', input: RunStartWorkspace): void {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const marker = { schema: 'keel_run_workspace_v1', kind, account: input.account, ...(kind === 'session' ? { session_id: input.sessionId } : { root_run_id: input.rootRunId }), created_at: new Date().toISOString() };
    try {
      writeFileSync(path.join(folder, MARKER_FILE), JSON.stringify(marker, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }

  async rootOf(ws: RunWorkspace): Promise<string> {
    if (ws.kind === 'launch_folder') return realPathOf(ws.path);
    const rel = path.normalize(ws.path);
    // A recorded folder is always a gateway-made folder directly under <data>/workspaces.
    if (path.isAbsolute(rel) || path.dirname(rel) !== 'workspaces') throw new Error(`Not a gateway-made workspace folder: ${ws.path}`);
    return realPathOf(path.join(this.dataDir, rel));
  }

  async check(ws: RunWorkspace, account: string, requested: string, need: 'ro' | 'rw'): Promise<Access> {
    const root = await this.rootOf(ws);
    const real = await realPathOf(path.resolve(root, requested));
    return this.judge(ws, account, root, real, need, requested);
  }

  /**
   * The checks of reference §1.5 on a real path: the run's own gateway-made folder, then the run's
   * own levels (a path they refuse is refused as theirs, so a confined run learns nothing about
   * protected folders; the reference checks built-in refusals first), the built-in refusals, the
   * gateway's cap. `shown` is the path as the run gave it: a refusal never names a real path the run did not give.
   */
  async judge(ws: RunWorkspace, account: string, root: string, real: string, need: 'ro' | 'rw', shown: string): Promise<Access> {
    // The ownership marker of any gateway-made folder (the run's own or another it may reach) decides whose folder it is: never written.
    if (need === 'rw' && path.basename(real) === MARKER_FILE && this.caps.gatewayFolderOf(real) === path.dirname(real)) {
      return { ok: false, sentence: `${shown} is the ownership marker of a workspace folder of the gateway; it cannot be changed.` };
    }
    if (ws.kind !== 'launch_folder' && inside(real, root)) return { ok: true, path: real, mode: 'rw' };
    const gateway = this.store.gateway();
    const layer = this.layerOf(ws);
    const upper = ws.cap ? readLayer(ws.cap) : null;
    const upperMode: FolderMode = upper ? layerMode(upper, real) : 'rw';
    const layerOwn: FolderMode = layer ? layerMode(layer, real) : 'rw';
    // A path the run's own levels refuse is refused as such, before the built-in refusals: telling a
    // confined run "is protected" would confirm where the data folder or a credential folder is.
    if (upperMode === 'deny' || layerOwn === 'deny') {
      // The account level refusing is told as such (an admin's choice, or the non-admin default).
      const byAccount = upper !== null && upperMode === 'deny';
      const by = byAccount ? upper : layer!;
      const hint = isOwnFolderLayer(by) && (byAccount || ws.level === 'account') ? NON_ADMIN_HINT : '';
      return { ok: false, sentence: `${shown} is not one of this run's workspaces (${summaryOf(this.caps.masked(by))}).${hint}` };
    }
    const cap = this.caps.cap(gateway, real, account, root, [...(layer?.folders ?? []), ...(upper?.folders ?? [])]);
    if (cap.refused) {
      const given = path.isAbsolute(shown) ? path.normalize(shown) : null;
      const where = given && inside(given, cap.refused.path) ? `is inside ${cap.refused.path}, which` : 'leads into a folder that';
      return { ok: false, sentence: `${shown} ${where} is protected (${PROTECTED_KIND_NAMES[cap.refused.kind]}).` };
    }
    if (cap.mode === 'deny') return { ok: false, sentence: `${shown} is outside the workspaces the gateway allows (${gatewaySummary({ caps: this.caps, gateway, account }, true)}).` };
    const mode: FolderMode = minMode(minMode(cap.mode, upperMode), layerOwn);
    if (need === 'rw' && mode !== 'rw') {
      if (cap.mode === 'ro') return { ok: false, sentence: `The gateway allows this workspace read-only: ${shown}.` };
      return { ok: false, sentence: `This run may only read ${shown} (${summaryOf(this.caps.masked(upper && upperMode === 'ro' ? upper : layer!))}).` };
    }
    return { ok: true, path: real, mode };
  }

  /** The run's layer; a record from before this plugin had none: `account` level meant only its own folder. */
  private layerOf(ws: RunWorkspace): PolicyLayer | null {
    if (ws.layer !== undefined) return ws.layer === null ? null : readLayer(ws.layer);
    return ws.level === 'account' ? OWN_FOLDER_LAYER : null;
  }

  async effective(account: string, sessionId: string | null, admin: boolean): Promise<EffectiveSet> {
    return this.effectiveWith(account, sessionId, admin, undefined, account);
  }

  /** The effective set, with a layer tried instead of the stored ones (`override`: the dry run). */
  effectiveWith(account: string, sessionId: string | null, admin: boolean, override: PolicyLayer | null | undefined, shownAccount: string, hideData = !admin): EffectiveSet {
    let chosen: Chosen;
    if (override) chosen = sessionId ? { level: 'session', layer: override, cap: this.accountLevel(account, admin)?.layer ?? null } : { level: 'account', layer: override, cap: null };
    else if (override === null) {
      // The tried level left unconfigured: the session falls back to the account, the account to its default.
      if (sessionId) chosen = this.chosen(account, null, admin);
      else chosen = !admin && this.settings.nonAdmin === 'own_folders' ? { level: 'account', layer: OWN_FOLDER_LAYER, cap: null } : { level: 'gateway', layer: null, cap: null };
    } else chosen = this.chosen(account, sessionId, admin);
    return effectiveSet(this.caps, this.store.gateway(), chosen, account, shownAccount, sessionId, hideData);
  }
}

function isOwnFolderLayer(layer: PolicyLayer): boolean {
  return layer.posture === 'allowed_only' && layer.folders.length === 0;
}

