/**
 * `@keel/plugin-artifacts`: attachments and artifacts (seed 000 §2.6, §4.6, §7): content-addressed
 * blobs, multipart uploads per session, the artifact index in LMDB, lists per run and per session,
 * content with `access_action`, export to and import from a workspace through the workspace policy,
 * `artifact_not_in_session` at run start and the files runs produce.
 */
import path from 'node:path';
import { core, definePlugin, token } from '@keel/plugin-sdk';
import { runHooksToken, runsDirectoryToken } from '@keel/plugin-gateway-runs';
import { workspacesToken } from '@keel/plugin-workspaces';
import { artifactsConfigSchema } from './artifact-config.js';
import { artifactsService, type ArtifactsService } from './artifact-content.js';
import { ArtifactIndex } from './artifact-index.js';
import { ArtifactScopes } from './artifact-scope.js';
import { ArtifactService } from './artifact-service.js';
import { BlobStore } from './blob-store.js';
import { producedFileListener } from './produced-files.js';
import { artifactRoutes } from './routes/artifact-routes.js';
import { transferRoutes } from './routes/transfer-routes.js';
import { uploadRoute } from './routes/upload-route.js';
import { sessionViolation } from './session-references.js';
import { searchRoutes } from './search/search-route.js';
import { filesRoutes } from './files/files-route.js';

export type { ArtifactRecord, ArtifactStore } from './artifact-record.js';
export type { ArtifactReference } from './artifact-reference.js';
export { isSharedWithUser, SHARED_TAG, SHARED_USER } from './artifact-record.js';
export type { ArtifactsConfig } from './artifact-config.js';

/** What other plugins get: read access to the artifact records of every account and their bytes. */
export type { ArtifactsService } from './artifact-content.js';
export { ArtifactTooLarge } from './artifact-content.js';

export const artifactsToken = token<ArtifactsService>('artifacts.service');

export const artifactsPlugin = definePlugin({
  id: 'artifacts',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Attachments and artifacts: uploads, lists, content, export and import through the workspace policy',
  configSchema: artifactsConfigSchema,
  defaultPrefix: '/api/gateway',
  guardUnmatched: true,
  deps: {
    storage: core.storage, paths: core.paths, log: core.logger, clock: core.clock, auth: core.auth,
    workspaces: workspacesToken, runs: runsDirectoryToken, hooks: runHooksToken,
  },
  provides: artifactsToken,
  setup({ config, deps }) {
    const index = new ArtifactIndex(deps.storage);
    const blobs = new BlobStore((account) => deps.paths.forAccount(account), path.join(deps.paths.pluginDir, 'tmp'));
    const service = new ArtifactService(index, blobs, deps.clock);
    const scopes = new ArtifactScopes(index, deps.runs);
    // The gateway's one attachment limit is the workspace policy's (`max_attachment_bytes` of GET /workspace/policy).
    const maxBytes = () => deps.workspaces.maxAttachmentBytes;

    deps.hooks.addStartCheck(async ({ principal, sessionId, inputData }) => {
      const refused = sessionViolation(index, principal.account, sessionId, inputData);
      if (refused) throw refused;
    });
    deps.hooks.onFileProduced(producedFileListener(service, maxBytes, deps.log));

    return {
      exports: artifactsService(index, blobs),
      routes: [
        uploadRoute(service, config, maxBytes),
        ...artifactRoutes(index, scopes, blobs, config),
        ...transferRoutes({ service, scopes, workspaces: deps.workspaces, runs: deps.runs, auth: deps.auth, config, maxBytes }),
        ...searchRoutes({ source: index, scopes, auth: deps.auth, settings: () => config.search }),
        ...filesRoutes({ workspaces: deps.workspaces, auth: deps.auth, settings: () => ({ ...config.files, hostedUserAuth: config.hostedUserAuth }) }),
      ],
      start: async () => {
        await index.rebuildSearch();
        await blobs.sweep();
      },
    };
  },
});

export default artifactsPlugin;
