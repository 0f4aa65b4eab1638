/**
 * The workspace part of a run start (seed §2.1, §4.5, §7; reference gateway-surfaces §1.6–1.7): an
 * HTTP door refuses what it cannot honour with 400 `{detail: {reason: 'workspace_refused',
 * message, path}}` before anything is stored. `workspaces.service` resolves one-off → session →
 * account → gateway, checks `workspace_root` (reachable, outside the data folder except the same
 * user's conversation folder), narrows by the legacy `workspace_allowed_paths`, makes the folder and
 * records what the run works under; `createRun` then writes the public part as `_gateway_workspace`
 * (a client value is replaced).
 */
import { badRequest } from '@keel/plugin-sdk';
import { WorkspaceRefused, type RunWorkspace, type WorkspaceService } from '@keel/plugin-workspaces';

/** What a start request says about its workspace. */
export interface StartWorkspaceRequest {
  session_id?: string;
  workspace_root?: string;
  workspace_allowed_paths?: string[];
  workspace_access_mode?: string;
}

export const ALL_EXCEPT_IGNORED_REFUSED = 'workspace_access_mode all_except_ignored is not accepted: the gateway decides whether a run may reach any folder (see GET /api/gateway/workspace/effective/me).';

/** 400 `workspace_refused` in the seed's body. */
export function workspaceRefused(message: string, path: string | null) {
  return badRequest({ reason: 'workspace_refused', message, path });
}

/** What the resolution does with a choice it cannot honour: `refuse` (an HTTP door: 400) or `clamp` (keep what may be, record the rest in `clamped`). */
export type WorkspaceDoor = 'refuse' | 'clamp';

/**
 * Resolves the workspace of a new root run (`oneOff`: its `input_data.workspace`, a top-level
 * `workspace` already moved there), then `create`s the run. A run without a session_id has no
 * conversation: it gets its own folder. The workspace record is queued, not committed on its own
 * (`commit: 'with_caller'`): `create` runs in the same event turn, so the run's creation commit
 * carries it (one synced commit, not two), and both are durable when this resolves.
 */
export async function createWithWorkspace(workspaces: WorkspaceService, req: StartWorkspaceRequest, run: { run_id: string; account: string }, admin: boolean, oneOff: unknown, door: WorkspaceDoor, create: () => Promise<void>): Promise<void> {
  await resolveStartWorkspace(workspaces, req, run, admin, oneOff, door, 'with_caller');
  await Promise.all([create(), workspaces.recordWritten?.(run.run_id)]);
}

/** Resolves and records the workspace of a new root run (`commit`: see `RunStartWorkspace.commit`). */
export async function resolveStartWorkspace(workspaces: WorkspaceService, req: StartWorkspaceRequest, run: { run_id: string; account: string }, admin: boolean, oneOff: unknown, door: WorkspaceDoor = 'refuse', commit: 'own' | 'with_caller' = 'own'): Promise<RunWorkspace> {
  try {
    return await workspaces.resolveRunStart({
      commit,
      account: run.account,
      admin,
      rootRunId: run.run_id,
      sessionId: req.session_id ?? null,
      oneOff,
      workspaceRoot: req.workspace_root,
      legacyAllowedPaths: req.workspace_allowed_paths,
      accessMode: req.workspace_access_mode,
      door,
    });
  } catch (err) {
    if (err instanceof WorkspaceRefused) throw workspaceRefused(err.message, err.path);
    throw err;
  }
}
