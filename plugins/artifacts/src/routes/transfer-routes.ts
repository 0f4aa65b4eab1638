/**
 * Export and import between artifacts and a workspace (seed §4.6, reference §2.4), both judged by
 * the workspace policy (`workspaces.service` `check()` with the run's recorded workspace, on real
 * paths, with the current gateway caps) and done on the opened descriptor. With `hostedUserAuth`
 * they are admin-only (seed §5).
 */
import path from 'node:path';
import { badRequest, conflict, defineSchema, forbidden, formatBytes, KEY_ID_MAX_LENGTH, notFound, payloadTooLarge, route, type AnyRoute, type AuthService, type Principal } from '@keel/plugin-sdk';
import type { RunsDirectory } from '@keel/plugin-gateway-runs';
import { MARKER_FILE, ToolRefusal, WorkspaceRefused, type RunWorkspace, type WorkspaceService } from '@keel/plugin-workspaces';
import type { ArtifactsConfig } from '../artifact-config.js';
import { metadataOf, ownerRunId, referenceOf } from '../artifact-reference.js';
import type { ArtifactScopes } from '../artifact-scope.js';
import type { ArtifactService } from '../artifact-service.js';
import { BlobTooLarge } from '../blob-store.js';
import { callerTags } from '../caller-tags.js';
import { memoryRunIdOf } from '../session-memory.js';
import { checkSessionId } from '../session-id.js';
import { cleanFilename, resolveContentType } from '../upload-names.js';
import { exportResponse, importResponse } from './response-schemas.js';
import { DestinationExists, DestinationRefused, destinationState, existingFolder, makeFolders, openSource, overlongName, writeIntoFolder } from '../workspace-files.js';

const MAX_PATH = 4096;

const exportParams = defineSchema({
  type: 'object',
  required: ['run_id', 'artifact_id'],
  properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH }, artifact_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } },
});
const exportBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    path: { type: 'string', minLength: 1, maxLength: MAX_PATH },
    destination: { type: 'string', minLength: 1, maxLength: MAX_PATH },
    create_parent_dirs: { type: 'boolean', default: false },
    overwrite: { type: 'boolean', default: false },
  },
});
const importBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['session_id'],
  properties: {
    session_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['kind'],
      properties: { kind: { type: 'string', maxLength: 64 }, path: { type: 'string', minLength: 1, maxLength: MAX_PATH } },
    },
    path: { type: 'string', minLength: 1, maxLength: MAX_PATH },
    run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH },
    filename: { type: 'string', minLength: 1, maxLength: 255 },
    content_type: { type: 'string', maxLength: 255 },
    pin_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
    purpose: { type: 'string', maxLength: 64, default: 'run_input' },
    tags: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 256 } },
  },
});

const SOURCE_KINDS = new Set(['workspace_path', 'path', 'workspace']);

/** No file name holds a NUL (the system refuses such a path outright). */
function refuseNul(wanted: string, field: string): void {
  if (wanted.includes('\u0000')) throw badRequest(`${field} contains a NUL character; no file has such a name.`, { code: 'invalid_path', field });
}

export interface TransferDeps {
  service: ArtifactService;
  scopes: ArtifactScopes;
  workspaces: WorkspaceService;
  /** `runs.directory`: the run folder quota export is held to. */
  runs: RunsDirectory;
  auth: AuthService;
  config: ArtifactsConfig;
  maxBytes: () => number;
}

export function transferRoutes(deps: TransferDeps): AnyRoute[] {
  const { service, scopes, workspaces, runs, auth, config } = deps;
  const requireAllowed = (principal: Principal) => {
    if (config.hostedUserAuth && !auth.isAdmin(principal)) throw forbidden('In hosted mode only an admin may move files between the server and artifacts (import and export).');
  };
  /**
   * The path as the caller sees it: relative to the run's root when inside it, else the real path,
   * but never where the data folder is (a path there is told relative to it: `workspaces/session-…`).
   */
  const canonical = async (ws: RunWorkspace, real: string) => {
    const root = await workspaces.rootOf(ws);
    const relative = path.relative(root, real);
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) return relative.split(path.sep).join('/');
    return workspaces.maskedPath ? workspaces.maskedPath(real) : real;
  };

  return [
    route({
      method: 'POST',
      path: '/runs/:run_id/artifacts/:artifact_id/export',
      summary: "Write an artifact into the run's workspace (`{path, create_parent_dirs, overwrite}`), through the workspace policy",
      tags: ['artifacts'],
      params: exportParams,
      body: exportBody,
      responses: { 200: { schema: exportResponse } },
      handler: async ({ params, body, principal }) => {
        requireAllowed(principal);
        const wanted = body.path ?? body.destination;
        if (!wanted) throw badRequest('path is required: name the file to write, relative to the run workspace or absolute.', { code: 'missing_path', field: 'path' });
        refuseNul(wanted, 'path');
        const scope = await scopes.ofRun(principal, params.run_id);
        const record = scopes.artifactIn(scope, params.artifact_id);
        const ws = scope.run?.workspace ?? null;
        if (!ws) throw badRequest(`Run '${params.run_id}' has no workspace to export into; export through a run that has one (any run of the artifact's session).`, { code: 'no_workspace' });
        const root = await workspaces.rootOf(ws);
        const access = await workspaces.check(ws, scope.account, wanted, 'rw');
        if (!access.ok) throw forbidden(access.sentence);
        // The ownership marker decides whose folder this is: nothing but the gateway writes it (the file tools refuse it too).
        const marker = path.join(root, MARKER_FILE);
        const markerRefusal = `${MARKER_FILE} marks the run's workspace folder; it cannot be changed.`;
        if (access.path === marker) throw forbidden(markerRefusal);
        const overlong = overlongName(access.path);
        if (overlong !== null) throw badRequest(`'${overlong.slice(0, 40)}…' in '${wanted.slice(0, 200)}' is longer than a file or folder name may be (255 bytes).`, { code: 'name_too_long', field: 'path' });
        const state = await destinationState(access.path);
        if (state === 'folder') throw badRequest(`'${wanted}' is a folder; name a file to write.`, { code: 'destination_is_folder', field: 'path' });
        if (state === 'file' && !body.overwrite) throw conflict('Destination already exists; set overwrite=true to replace it');
        const parent = path.dirname(access.path);
        const name = path.basename(access.path);
        // Judged again where a folder's descriptor really is: a link swapped in after the first check is refused.
        const judgeTarget = async (real: string) => {
          if (real === marker) return markerRefusal;
          const again = await workspaces.judge(ws, scope.account, root, real, 'rw', wanted);
          return again.ok ? null : again.sentence;
        };
        if (!(await existingFolder(parent)) && !body.create_parent_dirs) throw notFound(`The folder '${path.dirname(wanted)}' does not exist; set create_parent_dirs=true to create it.`);
        // The folders made and the file written count against the run folder's quota, as the file tools' writes do.
        const write = async () => {
          let folder = await existingFolder(parent);
          if (!folder) {
            try {
              folder = await makeFolders(parent, (real) => judgeTarget(path.join(real, name)));
            } catch (err) {
              if (err instanceof DestinationRefused) throw forbidden(err.message);
              throw err;
            }
          }
          const blob = service.blobs.open(record.account, record.sha256);
          try {
            return { folder, written: await writeIntoFolder(blob, folder, name, body.overwrite, judgeTarget) };
          } catch (err) {
            blob.destroy();
            if (err instanceof DestinationExists) throw conflict('Destination already exists; set overwrite=true to replace it');
            if (err instanceof DestinationRefused) throw forbidden(err.message);
            throw err;
          }
        };
        let done: Awaited<ReturnType<typeof write>>;
        try {
          done = runs.writeWithinQuota ? await runs.writeWithinQuota(root, access.path, wanted, record.size_bytes, write) : await write();
        } catch (err) {
          if (err instanceof ToolRefusal) throw forbidden(err.message);
          throw err;
        }
        const { folder, written } = done;
        const target = path.join(folder, name);
        return { ok: true, artifact_id: record.artifact_id, run_id: ownerRunId(record), path: await canonical(ws, target), bytes_written: written.bytes, content_type: record.content_type, sha256: written.sha256 };
      },
    }),
    route({
      method: 'POST',
      path: '/artifacts/import',
      summary: 'Store a workspace file as an artifact of a session (`{session_id, source: {kind: workspace_path, path}, pin_id}`), through the workspace policy',
      tags: ['artifacts'],
      body: importBody,
      responses: { 200: { schema: importResponse } },
      handler: async ({ body, principal }) => {
        requireAllowed(principal);
        const sessionId = checkSessionId(body.session_id);
        if (body.source && !SOURCE_KINDS.has(body.source.kind)) throw badRequest(`source.kind must be workspace_path, got '${body.source.kind}'.`, { code: 'invalid_source', field: 'source.kind' });
        const wanted = body.source?.path ?? body.path;
        if (!wanted) throw badRequest('source.path is required: name the workspace file to import.', { code: 'missing_path', field: 'source.path' });
        refuseNul(wanted, 'source.path');
        const { account, ws } = await importWorkspace(principal, sessionId, body.run_id);
        const access = await workspaces.check(ws, account, wanted, 'ro');
        if (!access.ok) throw forbidden(access.sentence);
        const opened = await openSource(access.path);
        if (!opened.ok) {
          if (opened.why === 'missing') throw notFound(`No file at '${wanted}'.`);
          if (opened.why === 'moved') throw forbidden(`'${wanted}' moved while it was checked; try again.`);
          if (opened.why === 'hard_link') throw forbidden(`'${wanted}' has other names (hard links) elsewhere on the disk, which the workspace policy cannot see; copy the file instead.`);
          throw badRequest(`'${wanted}' is not a regular file.`, { code: 'not_a_file', field: 'source.path' });
        }
        const max = deps.maxBytes();
        try {
          if (opened.stats.size > max) throw payloadTooLarge(`Artifact too large (${opened.stats.size} bytes > ${max} bytes); the limit is the workspaces setting maxAttachmentBytes (${formatBytes(max)}).`, { code: 'attachment_too_large' });
          const pending = await service.blobs.write(account, opened.handle.createReadStream({ autoClose: false, start: 0 }), max).catch((err: unknown) => {
            if (err instanceof BlobTooLarge) throw payloadTooLarge(`Artifact too large (more than ${max} bytes); the file grew while it was read.`, { code: 'attachment_too_large' });
            throw err;
          });
          const filename = cleanFilename(body.filename ?? path.basename(access.path));
          const tags: Record<string, string> = { ...callerTags(body.tags ?? null), purpose: body.purpose };
          if (body.pin_id) tags.pin_id = body.pin_id;
          const record = await service.add(pending, {
            account,
            session_id: sessionId,
            run_id: null,
            origin: 'import',
            filename,
            content_type: resolveContentType(filename, body.content_type, undefined),
            path: await canonical(ws, access.path),
            source_path: null,
            tags,
          });
          return { ok: true, run_id: ownerRunId(record), artifact: referenceOf(record), metadata: metadataOf(record) };
        } finally {
          await opened.handle.close();
        }
      },
    }),
  ] as AnyRoute[];

  /** The workspace an import reads from: the named run's, else the one a new run of the session would get. */
  async function importWorkspace(principal: Principal, sessionId: string, runId: string | undefined): Promise<{ account: string; ws: RunWorkspace }> {
    if (runId) {
      const scope = await scopes.ofRun(principal, runId);
      if (scope.session_id !== sessionId) throw badRequest(`Run '${runId}' is not a run of session '${sessionId}'.`, { code: 'run_not_in_session', field: 'run_id' });
      if (!scope.run?.workspace) throw badRequest(`Run '${runId}' has no workspace to import from.`, { code: 'no_workspace' });
      return { account: scope.account, ws: scope.run.workspace };
    }
    try {
      const ws = await workspaces.resolveRunStart({ account: principal.account, admin: auth.isAdmin(principal), rootRunId: memoryRunIdOf(sessionId), sessionId, door: 'refuse' });
      return { account: principal.account, ws };
    } catch (err) {
      // The seed's body for every workspace refusal (§7).
      if (err instanceof WorkspaceRefused) throw badRequest({ reason: 'workspace_refused', message: err.message, path: err.path });
      throw err;
    }
  }
}
