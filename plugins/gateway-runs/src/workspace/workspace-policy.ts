/**
 * The gateway-level workspace policy (reference gateway-surfaces §1): where a run's file tools may
 * read and write. Every root run gets its own folder `<data>/workspaces/run-<root run id>` (child runs
 * share it), always read & write for that run. Any other path is judged by its real path (links
 * resolved, so a link cannot lead out): the built-in refusals (the data folder, the credential
 * folders of the server's OS user) first, then the longest containing configured row, else the
 * default mode under `any_except_denied`, else refused. Only the gateway level exists here: no
 * account, session or per-run layers.
 */
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Posture = 'any_except_denied' | 'allowed_only';
export type FolderMode = 'ro' | 'rw' | 'deny';

export interface WorkspacePolicyConfig {
  posture: Posture;
  default_mode: 'ro' | 'rw';
  folders: Array<{ path: string; mode: FolderMode }>;
}

export const DEFAULT_WORKSPACE_POLICY: WorkspacePolicyConfig = { posture: 'any_except_denied', default_mode: 'rw', folders: [] };

/** The credential folders of the server's OS user that are never reachable (reference §1.4). */
export const CREDENTIAL_FOLDERS = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.kube', 'Library/Keychains', '.abstractgateway', '.abstractcode', '.abstractassistant', '.abstractcontinuum', '.abstractcore'];

export const MARKER_FILE = '.keel-workspace.json';

const POSTURE_LABELS: Record<Posture, string> = {
  allowed_only: 'Deny everything, allow listed workspaces',
  any_except_denied: 'Allow everything, refuse listed workspaces',
};

/** What `_gateway_workspace` holds on a run (reference §1.5, §1.6). */
export interface GatewayWorkspace {
  kind: 'run';
  path: string;
  level: 'gateway';
  summary: string;
}

export type Access = { ok: true; path: string; mode: 'ro' | 'rw' } | { ok: false; path: string; sentence: string };

/** Mode order deny < ro < rw. */
const RANK: Record<FolderMode, number> = { deny: 0, ro: 1, rw: 2 };

export class WorkspacePolicy {
  private readonly policy: WorkspacePolicyConfig;
  private readonly dataDir: string;

  constructor(dataDir: string, policy: Partial<WorkspacePolicyConfig> = {}, private readonly home: string = os.homedir()) {
    // A fresh gateway is any_except_denied with rw and no rows; an unknown posture reads as any_except_denied, a default other than ro as rw.
    this.policy = {
      posture: policy.posture === 'allowed_only' ? 'allowed_only' : 'any_except_denied',
      default_mode: policy.default_mode === 'ro' ? 'ro' : 'rw',
      folders: (policy.folders ?? []).filter((f) => f && typeof f.path === 'string' && path.isAbsolute(f.path) && f.mode in RANK),
    };
    this.dataDir = realPathOf(path.resolve(dataDir));
  }

  /** The summary line (reference §1.5): posture label, ` (<default>)` under any_except_denied, then the rows. */
  summary(): string {
    const head = POSTURE_LABELS[this.policy.posture] + (this.policy.posture === 'any_except_denied' ? ` (${this.policy.default_mode})` : '');
    return [head, ...this.policy.folders.map((f) => `${f.path} (${f.mode === 'deny' ? 'refused' : f.mode})`)].join(' \u00b7 ');
  }

  /** The folder of a root run (also its children's). */
  runFolder(rootRunId: string): string {
    return path.join(this.dataDir, 'workspaces', `run-${rootRunId}`);
  }

  /** The real path of a root run's folder. */
  runRoot(rootRunId: string): string {
    return realPathOf(this.runFolder(rootRunId));
  }

  /** Creates the root run's folder with its ownership marker (idempotent) and answers what the run records. */
  ensureRunFolder(rootRunId: string, account: string): GatewayWorkspace {
    const folder = this.runFolder(rootRunId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const marker = path.join(folder, MARKER_FILE);
    if (!existsSync(marker)) {
      writeFileSync(marker, JSON.stringify({ schema: 'keel_run_workspace_v1', kind: 'run', root_run_id: rootRunId, account, created_at: new Date().toISOString() }, null, 2) + '\n', { mode: 0o600 });
    }
    return this.record(rootRunId);
  }

  record(rootRunId: string): GatewayWorkspace {
    return { kind: 'run', path: this.runFolder(rootRunId), level: 'gateway', summary: this.summary() };
  }

  /**
   * Whether the run of root `rootRunId` may use `requested` (relative paths resolve against the
   * run's folder) for reading (`ro`) or writing (`rw`); the answer carries the real path to use.
   */
  check(rootRunId: string, requested: string, need: 'ro' | 'rw'): Access {
    const root = this.runRoot(rootRunId);
    const real = realPathOf(path.resolve(root, requested));
    const mode = this.modeOf(root, real);
    if (!mode.ok) return mode;
    if (need === 'rw' && mode.mode !== 'rw') return { ok: false, path: real, sentence: `The gateway allows this workspace read-only: ${real}.` };
    return mode;
  }

  /** The checks of reference §1.5, in order: own folder, built-in refusals, the gateway's rows and default. */
  private modeOf(root: string, real: string): Access {
    if (inside(real, root)) return { ok: true, path: real, mode: 'rw' };
    for (const folder of this.builtinRefused(root)) {
      if (inside(real, folder)) return { ok: false, path: real, sentence: `${real} is inside ${folder}, which is protected (the gateway's data directory or a credential directory).` };
    }
    let best: { length: number; mode: FolderMode } | null = null;
    for (const row of this.policy.folders) {
      const rowReal = realPathOf(path.resolve(row.path));
      if (!inside(real, rowReal)) continue;
      // The longest real-path prefix wins, refused rows included; on a tie the stricter mode.
      if (!best || rowReal.length > best.length || (rowReal.length === best.length && RANK[row.mode] < RANK[best.mode])) best = { length: rowReal.length, mode: row.mode };
    }
    const mode: FolderMode = best ? best.mode : this.policy.posture === 'any_except_denied' ? this.policy.default_mode : 'deny';
    if (mode === 'deny') return { ok: false, path: real, sentence: `${real} is outside the workspaces the gateway allows (${this.summary()}).` };
    return { ok: true, path: real, mode };
  }

  /** The data folder and the credential folders, as real paths; a credential folder containing the run's root is dropped. */
  private builtinRefused(root: string): string[] {
    const credentials = CREDENTIAL_FOLDERS.map((f) => realPathOf(path.join(this.home, f))).filter((f) => !inside(root, f));
    return [this.dataDir, ...credentials];
  }
}

/** Whether `p` is `dir` or lies under it, on whole path components. */
export function inside(p: string, dir: string): boolean {
  if (p === dir) return true;
  const rel = path.relative(dir, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The real path of `p`, which need not exist: the deepest existing ancestor is resolved (links
 * followed) and the missing rest appended; a dangling link is followed to where it points.
 */
export function realPathOf(p: string, depth = 0): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    // Missing (or unreadable): resolve the parent, then this component.
  }
  const parent = path.dirname(abs);
  if (parent === abs || depth > 64) return abs;
  const base = realPathOf(parent, depth + 1);
  const joined = path.join(base, path.basename(abs));
  try {
    if (lstatSync(joined).isSymbolicLink()) return realPathOf(path.resolve(base, readlinkSync(joined)), depth + 1);
  } catch {
    // Nothing there yet.
  }
  return joined;
}
