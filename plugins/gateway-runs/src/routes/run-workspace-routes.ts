/**
 * The run workspace routes (seed §2.7 and §4.5, reference gateway-surfaces §1.8): what a run's
 * folder is, its listing, a file's content, and opening it on the gateway computer. Only the
 * account that started the run sees them (another account's run answers 404, an admin's too).
 * Every path is judged on real paths against the current policy at each call.
 */
import os from 'node:os';
import path from 'node:path';
import { conflict, defineSchema, forbidden, HttpError, KEY_ID_MAX_LENGTH, notFound, route, type Principal } from '@keel/plugin-sdk';
import type { RunWorkspace, WorkspaceService } from '@keel/plugin-workspaces';
import { workspaceOf } from '../extensions/runs-directory.js';
import { callerIsThisMachine } from '../run-workspace/caller-place.js';
import { findProgram, platformOpener, runOpener } from '../run-workspace/folder-opener.js';
import { requestSegments } from '../run-workspace/request-path.js';
import type { RunWorkspaceSettings } from '../run-workspace/settings.js';
import { sendWorkspaceFile } from '../run-workspace/workspace-content.js';
import { listFolder } from '../run-workspace/workspace-listing.js';
import { WorkspacePlace } from '../run-workspace/workspace-place.js';
import type { RunState } from '../runtime/run-state.js';

const runParams = defineSchema({ type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const filesQuery = defineSchema({
  type: 'object',
  properties: { path: { type: 'string' }, recursive: { type: 'boolean', default: false }, limit: { type: 'integer', minimum: 1 } },
});
const contentQuery = defineSchema({ type: 'object', required: ['path'], properties: { path: { type: 'string', minLength: 1 } } });

export interface RunWorkspaceRoutesDeps {
  load(runId: string): RunState | undefined;
  /** The `workspaces.service` token. */
  workspaces: WorkspaceService;
  isAdmin(principal: Principal): boolean;
  settings: RunWorkspaceSettings;
}

export function runWorkspaceRoutes(d: RunWorkspaceRoutesDeps) {
  /** The caller's run and what its tree recorded about its workspace (null for a run made before workspaces). */
  const ownRun = (principal: Principal, runId: string): { run: RunState; ws: RunWorkspace | null } => {
    const run = d.load(runId);
    if (!run || run.account !== principal.account) throw notFound(`Run '${runId}' not found.`);
    return { run, ws: workspaceOf(d.workspaces, run.root_run_id === run.run_id ? run : d.load(run.root_run_id)) };
  };
  const placeOf = async (principal: Principal, runId: string): Promise<WorkspacePlace> => {
    const { run, ws } = ownRun(principal, runId);
    if (!ws) throw notFound(`Run '${runId}' has no workspace folder.`, { code: 'not_found' });
    const place = await WorkspacePlace.open(d.workspaces, ws, run.account);
    if (!place) throw notFound(`The workspace folder of run '${runId}' does not exist (any more).`, { code: 'not_found' });
    return place;
  };
  /** The folder as the caller may see it: the real path for an admin or a launch folder; a gateway-made folder's data-relative path for others. */
  const shownRoot = async (principal: Principal, ws: RunWorkspace): Promise<string> => {
    if (ws.kind === 'launch_folder' || !d.isAdmin(principal)) return ws.path;
    return d.workspaces.rootOf(ws);
  };
  return [
    route({
      method: 'GET',
      path: '/runs/:run_id/workspace',
      tags: ['runs'],
      summary: "What the run's workspace folder is, and whether the caller sits at the gateway computer",
      params: runParams,
      handler: async ({ params, principal, koa }) => {
        const { run, ws } = ownRun(principal, params.run_id);
        const local = callerIsThisMachine(koa);
        const place = ws ? await WorkspacePlace.open(d.workspaces, ws, run.account) : null;
        return {
          run_id: run.run_id,
          workspace_root: ws ? await shownRoot(principal, ws) : null,
          kind: ws?.kind ?? null,
          session_id: run.session_id,
          exists: place !== null,
          host: { hostname: os.hostname(), caller_is_this_machine: local },
          open_supported: local && d.isAdmin(principal),
          workspace_level: ws?.level ?? null,
          workspace_summary: ws?.summary ?? null,
          workspace_clamped: ws?.clamped ?? [],
        };
      },
    }),
    route({
      method: 'GET',
      path: '/runs/:run_id/workspace/files',
      tags: ['runs'],
      summary: "A folder of the run's workspace: folders first, then files, by name; what is not shown is counted in `hidden`",
      params: runParams,
      query: filesQuery,
      handler: async ({ params, query, principal }) => {
        const segments = requestSegments(query.path);
        const place = await placeOf(principal, params.run_id);
        const shown = segments.join('/');
        const { real, stats } = await place.locate(segments, shown);
        if (!stats.isDirectory()) throw new HttpError(400, `${shown} is a file; read it with /workspace/content.`, { code: 'invalid_request', field: 'query.path' });
        const limit = Math.min(query.limit ?? d.settings.maxListEntries, d.settings.maxListEntries);
        return listFolder(place, real, query.recursive ?? false, limit, d.settings);
      },
    }),
    route({
      method: 'GET',
      path: '/runs/:run_id/workspace/content',
      tags: ['runs'],
      summary: "A file of the run's workspace, inline with nosniff and a sandbox CSP; byte ranges (206, 416)",
      params: runParams,
      query: contentQuery,
      handler: async ({ params, query, principal, koa }) => {
        const segments = requestSegments(query.path);
        const place = await placeOf(principal, params.run_id);
        return sendWorkspaceFile(koa, place, segments, segments.join('/'), d.settings);
      },
    }),
    route({
      method: 'POST',
      path: '/runs/:run_id/workspace/open',
      tags: ['runs'],
      summary: "Opens the run's folder in the file manager of the gateway computer (an admin sitting at it only)",
      params: runParams,
      handler: async ({ params, principal, koa }) => {
        const { run, ws } = ownRun(principal, params.run_id);
        if (!d.isAdmin(principal) || !callerIsThisMachine(koa)) {
          throw forbidden('Only an admin sitting at the gateway computer can open a folder there; list the files with /workspace/files instead.', { code: 'forbidden' });
        }
        if (!ws) throw conflict(`Run '${run.run_id}' has no workspace folder.`, { code: 'no_workspace' });
        const place = await WorkspacePlace.open(d.workspaces, ws, run.account);
        if (!place) throw notFound(`The workspace folder of run '${run.run_id}' does not exist (any more).`, { code: 'not_found' });
        const wanted = d.settings.opener ?? platformOpener();
        const program = await findProgram(wanted);
        if (!program) {
          throw new HttpError(501, `No program to open folders was found on the gateway computer (looked for ${wanted}; gateway-runs setting runWorkspace.opener); open ${place.root} yourself.`, { code: 'no_opener' });
        }
        try {
          await runOpener(program, place.root, d.settings.openTimeoutMs);
        } catch (err) {
          throw new HttpError(500, `The folder could not be opened: ${(err as Error).message}`, { code: 'open_failed' });
        }
        return { ok: true, opened: true, run_id: run.run_id, workspace_root: place.root, opener: path.basename(program) };
      },
    }),
  ];
}
