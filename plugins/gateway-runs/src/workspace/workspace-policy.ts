/**
 * The workspace policy (reference gateway-surfaces §1): where a run's file tools may read and write.
 * Every root run gets its own folder `<data>/workspaces/run-<root run id>` (child runs share it),
 * always read & write for that run. Any other path is judged by its real path (links resolved, so
 * a link cannot lead out):
 * - a run started by a non-admin account is confined to its own folder (setting
 *   `workspace.nonAdmin: own_folders`, the default; `gateway_policy` lets such runs follow the
 *   gateway policy like an admin's);
 * - otherwise the built-in refusals first, then the longest containing configured row, else the
 *   default mode under `any_except_denied`, else refused.
 * Refusals name the path as the run asked for it, never a real path it did not give.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BuiltinRefusals, PROTECTED_KIND_NAMES } from './builtin-refusals.js';
import { FolderUsage } from './folder-quota.js';
import { inside, realPathOf, realPathSync } from './real-path.js';

export { inside, realPathOf } from './real-path.js';

export type Posture = 'any_except_denied' | 'allowed_only';
export type FolderMode = 'ro' | 'rw' | 'deny';

export interface WorkspacePolicyConfig {
  posture: Posture;
  default_mode: 'ro' | 'rw';
  folders: Array<{ path: string; mode: FolderMode }>;
}

export const DEFAULT_WORKSPACE_POLICY: WorkspacePolicyConfig = { posture: 'any_except_denied', default_mode: 'rw', folders: [] };

/** What a run's tools may reach: the gateway policy (admins' runs), or only the run's own folder. */
export type RunReach = 'gateway' | 'own_folder';

/** What runs of non-admin accounts reach (setting `workspace.nonAdmin`). */
export type NonAdminReach = 'own_folders' | 'gateway_policy';

/**
 * What a run's tools reach: the gateway policy when an admin started its tree (recorded at the
 * start, inherited by child runs) or the setting lets every account follow it; else its own folder.
 */
export function reachOf(startedByAdmin: boolean | undefined, nonAdmin: NonAdminReach): RunReach {
  return startedByAdmin === true || nonAdmin === 'gateway_policy' ? 'gateway' : 'own_folder';
}

export const MARKER_FILE = '.keel-workspace.json';

const POSTURE_LABELS: Record<Posture, string> = {
  allowed_only: 'Deny everything, allow listed workspaces',
  any_except_denied: 'Allow everything, refuse listed workspaces',
};

/** The summary of a run confined to its own folder: an `allowed_only` layer with no rows. */
const OWN_FOLDER_SUMMARY = POSTURE_LABELS.allowed_only;

/**
 * What `_gateway_workspace` holds on a run (reference §1.5, §1.6). `path` is the run folder relative
 * to the data directory (`workspaces/run-<id>`): the absolute data path is never told to a run.
 */
export interface GatewayWorkspace {
  kind: 'run';
  path: string;
  level: 'gateway' | 'account';
  summary: string;
}

export type Access = { ok: true; path: string; mode: 'ro' | 'rw' } | { ok: false; sentence: string };

/** Mode order deny < ro < rw. */
const RANK: Record<FolderMode, number> = { deny: 0, ro: 1, rw: 2 };

export class WorkspacePolicy {
  private readonly policy: WorkspacePolicyConfig;
  private readonly dataDir: string;
  private readonly refusals: BuiltinRefusals;
  /** What the run folders hold, for their quota (see folder-quota.ts). */
  readonly usage = new FolderUsage();

  constructor(dataDir: string, policy: Partial<WorkspacePolicyConfig> = {}, refusals?: BuiltinRefusals) {
    // A fresh gateway is any_except_denied with rw and no rows; an unknown posture reads as any_except_denied, a default other than ro as rw.
    this.policy = {
      posture: policy.posture === 'allowed_only' ? 'allowed_only' : 'any_except_denied',
      default_mode: policy.default_mode === 'ro' ? 'ro' : 'rw',
      folders: (policy.folders ?? []).filter((f) => f && typeof f.path === 'string' && path.isAbsolute(f.path) && f.mode in RANK),
    };
    this.dataDir = realPathSync(path.resolve(dataDir));
    this.refusals = refusals ?? new BuiltinRefusals(this.dataDir);
  }

  /** The summary line (reference §1.5): posture label, ` (<default>)` under any_except_denied, then the rows. */
  summary(reach: RunReach = 'gateway'): string {
    if (reach === 'own_folder') return OWN_FOLDER_SUMMARY;
    const head = POSTURE_LABELS[this.policy.posture] + (this.policy.posture === 'any_except_denied' ? ` (${this.policy.default_mode})` : '');
    return [head, ...this.policy.folders.map((f) => `${f.path} (${f.mode === 'deny' ? 'refused' : f.mode})`)].join(' \u00b7 ');
  }

  /** The folder of a root run (also its children's). */
  runFolder(rootRunId: string): string {
    return path.join(this.dataDir, 'workspaces', `run-${rootRunId}`);
  }

  /** The real path of a root run's folder. */
  runRoot(rootRunId: string): Promise<string> {
    return realPathOf(this.runFolder(rootRunId));
  }

  /** Creates the root run's folder with its ownership marker (idempotent) and answers what the run records. */
  async ensureRunFolder(rootRunId: string, account: string, reach: RunReach): Promise<GatewayWorkspace> {
    const folder = this.runFolder(rootRunId);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const marker = JSON.stringify({ schema: 'keel_run_workspace_v1', kind: 'run', root_run_id: rootRunId, account, created_at: new Date().toISOString() }, null, 2) + '\n';
    try {
      await writeFile(path.join(folder, MARKER_FILE), marker, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return this.record(rootRunId, reach);
  }

  record(rootRunId: string, reach: RunReach): GatewayWorkspace {
    return { kind: 'run', path: path.join('workspaces', `run-${rootRunId}`), level: reach === 'gateway' ? 'gateway' : 'account', summary: this.summary(reach) };
  }

  /**
   * Whether the run of root `rootRunId` may use `requested` (relative paths resolve against the
   * run's folder) for reading (`ro`) or writing (`rw`); the answer carries the real path to use.
   */
  async check(rootRunId: string, requested: string, need: 'ro' | 'rw', reach: RunReach): Promise<Access> {
    const root = await this.runRoot(rootRunId);
    const real = await realPathOf(path.resolve(root, requested));
    return this.judge(root, real, need, reach, requested);
  }

  /**
   * The checks of reference §1.5 on a real path, in order: own folder, confinement, built-in
   * refusals, the gateway's rows and default. `shown` is the path as the run gave it.
   */
  async judge(root: string, real: string, need: 'ro' | 'rw', reach: RunReach, shown: string): Promise<Access> {
    if (inside(real, root)) return { ok: true, path: real, mode: 'rw' };
    if (reach === 'own_folder') {
      return { ok: false, sentence: `${shown} is not one of this run's workspaces (${OWN_FOLDER_SUMMARY}). Runs of a non-admin account reach only their own workspace folder (gateway-runs setting workspace.nonAdmin).` };
    }
    const refused = this.refusals.find(real, root);
    if (refused) {
      // Name the protected folder only when the run named it itself (no real path it did not give).
      const given = path.isAbsolute(shown) ? path.normalize(shown) : null;
      const where = given && inside(given, refused.path) ? `is inside ${refused.path}, which` : 'leads into a folder that';
      return { ok: false, sentence: `${shown} ${where} is protected (${PROTECTED_KIND_NAMES[refused.kind]}).` };
    }
    let best: { length: number; mode: FolderMode } | null = null;
    for (const row of this.policy.folders) {
      const rowReal = await realPathOf(path.resolve(row.path));
      if (!inside(real, rowReal)) continue;
      // The longest real-path prefix wins, refused rows included; on a tie the stricter mode.
      if (!best || rowReal.length > best.length || (rowReal.length === best.length && RANK[row.mode] < RANK[best.mode])) best = { length: rowReal.length, mode: row.mode };
    }
    const mode: FolderMode = best ? best.mode : this.policy.posture === 'any_except_denied' ? this.policy.default_mode : 'deny';
    if (mode === 'deny') return { ok: false, sentence: `${shown} is outside the workspaces the gateway allows (${this.summary()}).` };
    if (need === 'rw' && mode !== 'rw') return { ok: false, sentence: `The gateway allows this workspace read-only: ${shown}.` };
    return { ok: true, path: real, mode };
  }
}
