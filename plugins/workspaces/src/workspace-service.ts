/**
 * Contract 1 of issue 12: the `workspaces.service` token. Other plugins (gateway-runs, artifacts)
 * ask it where a run works and whether a path may be reached; they never judge paths themselves.
 */
import { token } from '@keel/plugin-sdk';

export type Posture = 'any_except_denied' | 'allowed_only';
export type FolderMode = 'ro' | 'rw' | 'deny';
export type PolicyLevel = 'run' | 'session' | 'account' | 'gateway';

/** One level of the policy: a posture, its default mode and folder rows (absolute paths). */
export interface PolicyLayer {
  posture: Posture;
  default_mode: 'ro' | 'rw';
  folders: Array<{ path: string; mode: FolderMode }>;
}

/** What clamping did to one asked row (reference gateway-surfaces §1.3). */
export interface ClampRecord {
  path: string;
  asked: FolderMode;
  got: FolderMode | null;
  sentence: string;
}

/** What a run records as `_gateway_workspace` (seed §2.2) — plus what enforcement needs later. */
export interface RunWorkspace {
  level: PolicyLevel;
  summary: string;
  clamped?: ClampRecord[];
  kind: 'session' | 'run' | 'launch_folder';
  /**
   * The run's root folder as recorded: relative to the data dir for gateway-made folders
   * (`workspaces/session-<id>` / `workspaces/run-<id>`), absolute for a launch folder.
   */
  path: string;
  /** The chosen layer after clamping (null: gateway only). Stored on the run, used by check(). */
  layer: PolicyLayer | null;
  /**
   * Beyond Contract 1: the account level that caps a session or run `layer` (the admin's choice for
   * the account, or the non-admin default), so a user's own layer never reaches past what an admin
   * allows his account. Absent or null: no cap but the gateway's.
   */
  cap?: PolicyLayer | null;
}

export interface RunStartWorkspace {
  /** principal.account of the run's owner ("tenant:name" form as auth gives it). */
  account: string;
  /** The owner is an admin. */
  admin: boolean;
  rootRunId: string;
  sessionId: string | null;
  /** input_data.workspace (or top-level workspace moved there). */
  oneOff?: unknown;
  /** Start request workspace_root. */
  workspaceRoot?: unknown;
  legacyAllowedPaths?: unknown;
  accessMode?: unknown;
  /** 'refuse': HTTP doors (400 workspace_refused); 'clamp': automation occurrences etc. */
  door: 'refuse' | 'clamp';
  /**
   * `with_caller`: the record is queued, not awaited, so the caller's own commit in the same event
   * turn (the run's creation) carries it: one synced commit instead of two. `recorded()` answers it
   * meanwhile; the caller awaits `recordWritten(rootRunId)` with its commit. Default `own`: the
   * record is durable when `resolveRunStart` resolves.
   */
  commit?: 'own' | 'with_caller';
}

/** → 400 `{detail: {reason: 'workspace_refused', message, path}}`. */
export class WorkspaceRefused extends Error {
  constructor(
    message: string,
    readonly path: string | null,
  ) {
    super(message);
    this.name = 'WorkspaceRefused';
  }
}

export type Access = { ok: true; path: string /* real path to use */; mode: 'ro' | 'rw' } | { ok: false; sentence: string };

export interface WorkspaceService {
  /**
   * Resolves one-off → session → account → gateway, clamps or refuses, makes the folder (with its
   * ownership marker) and answers what the run records.
   */
  resolveRunStart(input: RunStartWorkspace): Promise<RunWorkspace>;
  /** The real path of a run's root folder (from what the run recorded). */
  rootOf(ws: RunWorkspace): Promise<string>;
  /**
   * May this run reach `requested` (relative → against its root) for `need`? Judged on real paths
   * with the CURRENT gateway caps and built-in refusals (an admin tightening applies at once).
   */
  check(ws: RunWorkspace, account: string, requested: string, need: 'ro' | 'rw'): Promise<Access>;
  /** The folder a session's runs share (`<data>/workspaces/session-<hash of account+session>`). */
  conversationFolder(account: string, sessionId: string): string;
  /** Whether a real path is a data or credential folder (for /files/* 403 and listings' `hidden.blocked`). */
  isProtected(realPath: string): boolean;
  /** The effective set of seed §2.5 (also used by GET /workspace/effective). */
  effective(account: string, sessionId: string | null, admin: boolean): Promise<unknown>;

  // Members beyond Contract 1:
  /**
   * `check` for a real path already resolved (what an opened descriptor really is): `root` is
   * `rootOf(ws)`, `shown` the path as the run gave it (refusals name only that).
   */
  judge(ws: RunWorkspace, account: string, root: string, real: string, need: 'ro' | 'rw', shown: string): Promise<Access>;
  /** What `resolveRunStart` recorded for a root run (kept here, where no flow can change it), or null. */
  recorded(rootRunId: string): RunWorkspace | null;
  /**
   * Resolves once the record of a `commit: 'with_caller'` start is durable (at once when none is
   * pending); rejects when its write failed. Optional for other providers of the token.
   */
  recordWritten?(rootRunId: string): Promise<void>;
  /**
   * A real path as a run or a non-admin may be told it: inside the data folder relative to it
   * (`workspaces/session-…/x`), any other path as it is. Optional for other providers of the token.
   */
  maskedPath?(real: string): string;
  /** The largest attachment the gateway accepts (setting `maxAttachmentBytes`). */
  readonly maxAttachmentBytes: number;
}

export const workspacesToken = token<WorkspaceService>('workspaces.service');
