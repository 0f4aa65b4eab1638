/**
 * A root run's workspace, from the `workspaces.service`: what its start door resolved (recorded by
 * the service, where no flow can change it), else resolved now with clamping (doors that must not
 * refuse, and runs from before the workspaces plugin: those keep their `run-<id>` folder).
 */
import type { RunWorkspace, WorkspaceService } from '@keel/plugin-workspaces';

export interface RootRunIdentity {
  run_id: string;
  account: string;
  started_by_admin?: boolean;
  session_id: string | null;
  input_data: Record<string, unknown>;
}

export async function runWorkspaceOf(workspaces: WorkspaceService, run: RootRunIdentity): Promise<RunWorkspace> {
  const recorded = workspaces.recorded(run.run_id);
  if (recorded) return recorded;
  // A run started without a session_id gets its own id as its session: it has no conversation to share a folder with.
  const sessionId = run.session_id && run.session_id !== run.run_id ? run.session_id : null;
  return workspaces.resolveRunStart({ account: run.account, admin: run.started_by_admin === true, rootRunId: run.run_id, sessionId, oneOff: run.input_data.workspace, door: 'clamp' });
}

/** What a run shows as `_gateway_workspace` (seed §2.2): `{level, summary, clamped?, kind, path}`, without the layers. */
export function workspaceVar(ws: RunWorkspace): Record<string, unknown> {
  const { layer: _layer, cap: _cap, ...shown } = ws;
  return shown;
}
