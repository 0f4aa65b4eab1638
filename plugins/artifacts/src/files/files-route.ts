/**
 * `GET /files/list` (seed §4.6, reference gateway-surfaces §2.7): server folders the caller's
 * workspace policy reaches, with file families, extensions, a query, recursion and depth. Data and
 * credential folders are refused (403) whoever asks, and so is a folder the caller's effective
 * policy refuses; in hosted user-auth mode (setting `hostedUserAuth`) only an admin may list.
 */
import { lstat, realpath } from 'node:fs/promises';
import { badRequest, defineSchema, forbidden, notFound, route, type AnyRoute, type AuthService, type Principal } from '@keel/plugin-sdk';
import { ToolRefusal, type WorkspaceService } from '@keel/plugin-workspaces';
import { FAMILIES, parseExtensions, type Family } from './file-families.js';
import { canonicalOf, insidePath, locate, modeOf, reachOf, rootsFor, type Reach, type Roots } from './file-roots.js';
import type { FilesSettings } from './files-settings.js';
import { listFolder, openListed, type ListedEntry, type ListingRequest } from './folder-listing.js';

export interface FilesRouteDeps {
  workspaces: WorkspaceService;
  auth: AuthService;
  settings: () => FilesSettings & { hostedUserAuth: boolean };
}

const PARAMETERS = ['path', 'recursive', 'include_directories', 'family', 'extensions', 'query', 'limit', 'max_depth'] as const;
type RawFilesQuery = Partial<Record<(typeof PARAMETERS)[number], string>>;

const filesQuery = defineSchema({
  type: 'object',
  properties: Object.fromEntries(PARAMETERS.map((name) => [name, { type: 'string', maxLength: 4096 }])),
});

const refuse = (field: string, sentence: string) => badRequest(sentence, { code: 'invalid_files_request', field });

function flag(raw: RawFilesQuery, field: 'recursive' | 'include_directories', fallback: boolean): boolean {
  const value = raw[field]?.trim().toLowerCase();
  if (value === undefined || value === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw refuse(field, `${field} must be true or false.`);
}

function whole(raw: RawFilesQuery, field: 'limit' | 'max_depth', min: number, max: number, fallback: number): number {
  const value = raw[field]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) throw refuse(field, `${field} must be a whole number from ${min} to ${max}.`);
  return Number(value);
}

export function parseListing(raw: RawFilesQuery, settings: FilesSettings): ListingRequest & { path: string } {
  const unknown = Object.keys(raw).filter((key) => !(PARAMETERS as readonly string[]).includes(key));
  if (unknown.length > 0) throw refuse(unknown[0]!.slice(0, 64), `Unknown parameter '${unknown[0]!.slice(0, 64)}'; accepted: ${PARAMETERS.join(', ')}.`);
  let families: Set<Family> | null = null;
  const familyText = raw.family?.trim().toLowerCase() ?? '';
  if (familyText !== '' && familyText !== 'any' && familyText !== 'all') {
    families = new Set();
    for (const name of familyText.split(',').map((f) => f.trim()).filter((f) => f !== '')) {
      if (!(FAMILIES as readonly string[]).includes(name)) throw refuse('family', `family must be any or one of ${FAMILIES.join(', ')}.`);
      families.add(name as Family);
    }
  }
  const extensions = raw.extensions ? parseExtensions(raw.extensions) : null;
  const query = raw.query?.trim().toLowerCase() || null;
  const maxDepth = whole(raw, 'max_depth', 0, settings.maxDepth, 0);
  return {
    path: raw.path?.trim() ?? '',
    recursive: flag(raw, 'recursive', false),
    includeDirectories: flag(raw, 'include_directories', true),
    families,
    extensions: extensions && extensions.size > 0 ? extensions : null,
    query,
    limit: whole(raw, 'limit', 1, settings.maxLimit, Math.min(settings.defaultLimit, settings.maxLimit)),
    maxDepth: maxDepth === 0 ? settings.maxDepth : maxDepth,
  };
}

export function filesRoutes(deps: FilesRouteDeps): AnyRoute[] {
  const { workspaces, auth } = deps;

  /** Whether a real path may be shown to a caller with this reach. */
  const visibleFor = (reach: Reach) => (real: string) => !workspaces.isProtected(real) && modeOf(reach, real) !== 'deny';

  const mountEntries = (roots: Roots, request: ListingRequest): ListedEntry[] =>
    roots.mounts
      .map((m): ListedEntry => ({ path: m.alias!, name: m.alias!, kind: 'folder', family: 'folder', mount: m.alias! }))
      .filter((e) => request.includeDirectories && request.families === null && request.extensions === null && (!request.query || `${e.path} ${e.name}`.includes(request.query)));

  return [
    route({
      method: 'GET',
      path: '/files/list',
      summary: 'List server folders your workspace policy reaches (families, extensions, query, recursion)',
      description:
        'Parameters: path (empty: the main root, then one entry per workspace mount), recursive, include_directories, family (image, video, audio, document, text, code, json, archive, other), extensions (comma or newline list), query, limit, max_depth (0 = the setting). Data and credential folders answer 403; links leading outside a root are never followed. Admin-only in hosted mode.',
      tags: ['files'],
      query: filesQuery,
      handler: async ({ query, principal }: { query: RawFilesQuery; principal: Principal }) => {
        const settings = deps.settings();
        if (settings.hostedUserAuth && !auth.isAdmin(principal)) throw forbidden('In hosted mode only an admin may list server files.');
        const request = parseListing(query, settings);
        const reach = reachOf(await workspaces.effective(principal.account, null, auth.isAdmin(principal)));
        const visible = visibleFor(reach);
        const roots = await rootsFor(settings.root, reach);
        const bounds = { maxEntriesScanned: settings.maxEntriesScanned, deadline: Date.now() + settings.timeBudgetMs, now: Date.now };

        /** Opens the folder to list where it really is; a swap since the checks is refused. */
        const openChecked = (root: Roots['main'], real: string, shown: string) =>
          openListed(root, real, visible, shown).catch((err: unknown) => {
            throw forbidden(err instanceof ToolRefusal ? err.message : `${shown} changed while it was being opened; try again.`);
          });

        if (request.path === '') {
          const listing = visible(roots.main.real)
            ? await listFolder(roots.main, roots.main.real, await openChecked(roots.main, roots.main.real, 'The main folder'), request, bounds, visible)
            : { items: [], truncated: false, hidden: { outside_links: 0, blocked: 1, other: 0 }, warnings: [] };
          const room = Math.max(request.limit - listing.items.length, 0);
          const mounts = mountEntries(roots, request);
          return { folder_path: '', items: [...listing.items, ...mounts.slice(0, room)], truncated: listing.truncated || mounts.length > room, hidden: listing.hidden, warnings: listing.warnings };
        }

        const located = locate(roots, request.path);
        // To a non-admin, a missing path and a refused one get one sentence (no existence oracle).
        const admin = auth.isAdmin(principal);
        const hidden = () => forbidden(`${request.path} does not exist or is not a folder you may list.`);
        let real: string;
        try {
          real = await realpath(located.lexical);
        } catch {
          throw admin ? notFound(`${request.path} does not exist.`) : hidden();
        }
        if (!insidePath(real, located.root.real)) throw admin ? forbidden(`${request.path} is a link leading outside the folder it is in; it is not listed.`) : hidden();
        if (workspaces.isProtected(real)) throw admin ? forbidden(`${request.path} is inside a protected folder (the gateway's data folder or a credential folder); it is never listed.`) : hidden();
        if (modeOf(reach, real) === 'deny') throw admin ? forbidden(`${request.path} is outside the workspaces your policy allows.`) : hidden();
        if (!(await lstat(real)).isDirectory()) throw refuse('path', `${request.path} is not a folder; list the folder that holds it.`);
        const listing = await listFolder(located.root, real, await openChecked(located.root, real, request.path), request, bounds, visible);
        return { folder_path: canonicalOf(located.root, real), items: listing.items, truncated: listing.truncated, hidden: listing.hidden, warnings: listing.warnings };
      },
    }),
  ] as AnyRoute[];
}
