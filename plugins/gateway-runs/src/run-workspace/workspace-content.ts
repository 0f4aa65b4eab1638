/**
 * `GET /runs/{id}/workspace/content` (seed §2.7, reference gateway-surfaces §1.8): one file of the
 * run's workspace, streamed inline with nosniff and `Content-Security-Policy: sandbox` (a page or
 * an SVG cannot run on the gateway's origin), with byte ranges. The file is opened without
 * following a final link and without waiting (a FIFO cannot hang it), and what the descriptor is
 * gets judged, not the path: a regular file with no other name (a hard link elsewhere could be a
 * file outside the folder), really inside the root and not blocked — a path swapped for a link
 * between the check and the open is refused (403).
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, contentTypeOfName, dispositionHeader, forbidden, notFound, writeFileReply, type HANDLED, type RouteContext } from '@keel/plugin-sdk';

type KoaContext = RouteContext<unknown, unknown, unknown>['koa'];
import { inside } from '@keel/plugin-workspaces';
import type { RunWorkspaceSettings } from './settings.js';
import { isMissing, type WorkspacePlace } from './workspace-place.js';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

export async function sendWorkspaceFile(koa: KoaContext, place: WorkspacePlace, segments: string[], shown: string, settings: RunWorkspaceSettings): Promise<typeof HANDLED> {
  const { real, stats } = await place.locate(segments, shown);
  if (stats.isDirectory()) throw badRequest(`${shown || '.'} is a folder; list it with /workspace/files.`, { code: 'invalid_request', field: 'query.path' });
  if (!stats.isFile()) throw notFound(`${shown} is not a regular file; only files are shown.`, { code: 'not_found' });
  let handle: FileHandle;
  try {
    handle = await open(real, OPEN_FLAGS);
  } catch (err) {
    // A final link put in place after the check (O_NOFOLLOW): refused like a link leading out.
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw swapped(shown);
    if (isMissing(err)) throw notFound(`${shown} does not exist in the run's workspace folder.`, { code: 'not_found' });
    throw err;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw notFound(`${shown} is not a regular file; only files are shown.`, { code: 'not_found' });
    if (place.isMarker(st)) throw notFound(`${shown} does not exist in the run's workspace folder.`, { code: 'not_found' });
    if (st.nlink > 1) throw forbidden(`${shown} has other names (hard links) the gateway cannot see, so it is not shown; copy it into the folder instead.`, { code: 'hard_link' });
    const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (where === null) {
      // No /proc: the descriptor must still be the file that was judged.
      const now = await lstat(real).catch(() => null);
      if (!now || now.dev !== st.dev || now.ino !== st.ino) throw swapped(shown);
    } else if (where !== real && (!inside(where, place.root) || (await place.blocked(where)))) {
      throw swapped(shown);
    }
  } catch (err) {
    await handle.close();
    throw err;
  }
  const name = path.basename(real);
  return writeFileReply(koa, { handle, stats: await handle.stat() }, {
    contentType: contentTypeOfName(name),
    cacheControl: 'private, no-cache',
    csp: 'sandbox',
    disposition: dispositionHeader('inline', name),
    maxRanges: settings.maxRanges,
  });
}

function swapped(shown: string) {
  return forbidden(`${shown} changed into a link leading outside the run's workspace folder while it was being opened; it is not shown.`, { code: 'outside_workspace' });
}
