/**
 * `@keel/plugin-workspaces`: where runs may read and write (seed 000 §2.5, §4.5; reference
 * gateway-surfaces §1): the workspace policy at four levels (gateway, account, session, run), run
 * and conversation folders, and descriptor-checked file access, provided as `workspaces.service`.
 */
import { core, definePlugin, defineSchemaFor } from '@keel/plugin-sdk';
import { AuditLog } from './audit-log.js';
import { BuiltinRefusals } from './builtin-refusals.js';
import { GatewayCaps } from './gateway-caps.js';
import { FRESH_GATEWAY, readLayer } from './policy-layer.js';
import { PolicyStore } from './policy-store.js';
import { realPathSync } from './real-path.js';
import { effectiveRoutes } from './routes/effective-routes.js';
import { policyRoutes } from './routes/policy-routes.js';
import { WorkspacePolicy, type WorkspacesSettings } from './workspace-policy.js';
import { workspacesToken, type WorkspaceService } from './workspace-service.js';

export { WorkspaceRefused, workspacesToken } from './workspace-service.js';
export type { Access, ClampRecord, FolderMode, PolicyLayer, PolicyLevel, Posture, RunStartWorkspace, RunWorkspace, WorkspaceService } from './workspace-service.js';
export { openFile, openFileForWrite, openFolder, ToolRefusal } from './checked-open.js';
export type { LocationJudge, OpenedFolder } from './checked-open.js';
export { inside, realPathOf, realPathSync } from './real-path.js';
export { BuiltinRefusals, CREDENTIAL_FOLDERS, PROTECTED_KIND_NAMES, SYSTEM_FOLDERS } from './builtin-refusals.js';
export type { ProtectedFolder, ProtectedKind } from './builtin-refusals.js';
export { MARKER_FILE } from './gateway-caps.js';
export { summaryOf } from './policy-layer.js';
export { WorkspacePolicy } from './workspace-policy.js';
export type { NonAdminDefault, WorkspacesSettings } from './workspace-policy.js';
export type { EffectiveSet, EffectiveRow } from './effective-set.js';

/** 25 MiB, the reference's default attachment limit. */
export const DEFAULT_MAX_ATTACHMENT_BYTES = 26_214_400;

const configSchema = defineSchemaFor<WorkspacesSettings>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    gatewayPolicy: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        posture: { type: 'string', enum: ['any_except_denied', 'allowed_only'], default: FRESH_GATEWAY.posture },
        default_mode: { type: 'string', enum: ['ro', 'rw'], default: FRESH_GATEWAY.default_mode },
        folders: {
          type: 'array',
          default: [],
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path', 'mode'],
            properties: { path: { type: 'string', minLength: 1 }, mode: { type: 'string', enum: ['ro', 'rw', 'deny'] } },
          },
        },
      },
    },
    nonAdmin: { type: 'string', enum: ['own_folders', 'gateway_policy'], default: 'own_folders' },
    maxAttachmentBytes: { type: 'integer', minimum: 1, default: DEFAULT_MAX_ATTACHMENT_BYTES },
    maxRows: { type: 'integer', minimum: 1, maximum: 10_000, default: 200 },
    maxPathLength: { type: 'integer', minimum: 64, maximum: 65_536, default: 4096 },
  },
});

export const workspacesPlugin = definePlugin({
  id: 'workspaces',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Workspace policy at four levels (gateway, account, session, run), run folders and checked file access',
  configSchema,
  defaultPrefix: '/api/gateway',
  guardUnmatched: true,
  deps: { storage: core.storage, paths: core.paths, auth: core.auth },
  provides: { workspaces: workspacesToken },
  setup({ config, deps }) {
    const dataDir = realPathSync(deps.paths.dataDir);
    // A configured row is judged by its real path, like a stored one (a relative one cannot be a workspace and is skipped).
    const configured = readLayer({ ...config.gatewayPolicy, folders: config.gatewayPolicy.folders.map((f) => ({ ...f, path: f.path.startsWith('/') ? realPathSync(f.path) : f.path })) });
    const caps = new GatewayCaps(dataDir, new BuiltinRefusals(dataDir));
    const audit = new AuditLog(deps.storage);
    const store = new PolicyStore(deps.storage, audit, configured);
    const policy = new WorkspacePolicy(dataDir, caps, store, config, deps.storage);
    return {
      exports: { workspaces: policy as WorkspaceService },
      routes: [...policyRoutes({ policy, auth: deps.auth }), ...effectiveRoutes({ policy, auth: deps.auth, audit })],
    };
  },
});

export default workspacesPlugin;
