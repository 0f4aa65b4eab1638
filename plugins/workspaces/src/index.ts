/**
 * `@keel/plugin-workspaces`: where runs may read and write (seed 000 §2.5, §4.5; reference
 * gateway-surfaces §1): the workspace policy at four levels (gateway, account, session, run), run
 * and conversation folders, and descriptor-checked file access, provided as `workspaces.service`.
 */
export { WorkspaceRefused, workspacesToken } from './workspace-service.js';
export type { Access, ClampRecord, FolderMode, PolicyLayer, PolicyLevel, Posture, RunStartWorkspace, RunWorkspace, WorkspaceService } from './workspace-service.js';
