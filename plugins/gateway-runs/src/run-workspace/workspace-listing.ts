/**
 * `GET /runs/{id}/workspace/files` (seed §2.7, reference gateway-surfaces §1.8): a breadth-first
 * walk of a folder of the run's workspace. Inside each folder, folders first, then by lower-cased
 * name, then name. What is not shown is counted: links leading outside the workspace
 * (`outside_links`), paths the policy blocks (`blocked`), and everything else that is not a plain
 * folder or file — devices, FIFOs, sockets, dangling links, unreadable entries, files with other
 * names elsewhere (hard links) — (`other`). The marker file is skipped and not counted. Each folder
 * is read through its descriptor, judged where it really is, so a folder swapped for a link while
 * the walk runs is not read.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, opendir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { inside } from '@keel/plugin-workspaces';
import type { RunWorkspaceSettings } from './settings.js';
import type { WorkspacePlace } from './workspace-place.js';

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

export interface ListingEntry {
  name: string;
  path: string;
  type: 'dir' | 'file';
  size_bytes: number | null;
  mtime: string;
}

export interface Listing {
  path: string;
  entries: ListingEntry[];
  truncated: boolean;
  limit: number;
  recursive: boolean;
  hidden: { outside_links: number; blocked: number; other: number };
}

interface Candidate {
  name: string;
  rel: string;
  real: string;
  st: Stats;
}

/**
 * The names in a folder (at most `max`), read through a descriptor whose real location is checked;
 * null when it is not the folder it was.
 */
async function namesIn(real: string, max: number): Promise<string[] | null> {
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const where = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    // Not the folder that was judged (swapped for a link meanwhile): not read.
    if (where !== null && where !== real) return null;
    const names: string[] = [];
    const dir = await opendir(where !== null ? `/proc/self/fd/${handle.fd}` : real, { bufferSize: 64 });
    for await (const e of dir) {
      names.push(e.name);
      if (names.length >= max) break;
    }
    return names;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

export async function listFolder(place: WorkspacePlace, start: string, recursive: boolean, limit: number, settings: RunWorkspaceSettings): Promise<Listing> {
  const hidden = { outside_links: 0, blocked: 0, other: 0 };
  const entries: ListingEntry[] = [];
  const queue: Array<{ real: string; depth: number }> = [{ real: start, depth: 0 }];
  // Each real folder is entered once (two links to one folder, a link to a parent).
  const visited = new Set<string>([start]);
  let scanned = 0;
  let truncated = false;
  walk: while (queue.length) {
    const folder = queue.shift()!;
    // One more than the scan budget left, so that running over it is seen.
    const names = await namesIn(folder.real, settings.maxListScan - scanned + 1);
    if (names === null) {
      hidden.other++;
      continue;
    }
    const shown: Candidate[] = [];
    for (const name of names) {
      if (++scanned > settings.maxListScan) {
        truncated = true;
        break walk;
      }
      const full = path.join(folder.real, name);
      const rel = place.relative(full);
      const seen = await judgeEntry(place, full);
      if (seen === 'marker') continue;
      if (typeof seen === 'string') {
        hidden[seen]++;
        continue;
      }
      shown.push({ name, rel, real: seen.real, st: seen.st });
    }
    shown.sort((a, b) => Number(b.st.isDirectory()) - Number(a.st.isDirectory()) || compare(a.name.toLowerCase(), b.name.toLowerCase()) || compare(a.name, b.name));
    for (const c of shown) {
      if (entries.length >= limit) {
        truncated = true;
        break walk;
      }
      const dir = c.st.isDirectory();
      entries.push({ name: c.name, path: c.rel, type: dir ? 'dir' : 'file', size_bytes: dir ? null : c.st.size, mtime: c.st.mtime.toISOString() });
      if (recursive && dir && folder.depth < settings.maxListDepth && !visited.has(c.real)) {
        visited.add(c.real);
        queue.push({ real: c.real, depth: folder.depth + 1 });
      }
    }
  }
  return { path: place.relative(start) || '.', entries, truncated, limit, recursive, hidden };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One directory entry: shown (with where it really is), skipped (the marker), or the hidden count it adds to. */
async function judgeEntry(place: WorkspacePlace, full: string): Promise<{ real: string; st: Stats } | 'marker' | 'outside_links' | 'blocked' | 'other'> {
  let st: Stats;
  let real = full;
  try {
    st = await lstat(full);
    if (st.isSymbolicLink()) {
      real = await realpath(full);
      if (!inside(real, place.root)) return 'outside_links';
      // lstat: a path with its links resolved has none left, unless one was swapped in since (then it is no file or folder).
      st = await lstat(real);
    }
  } catch {
    // Dangling, a loop, unreadable, or gone meanwhile.
    return 'other';
  }
  if (place.isMarker(st)) return 'marker';
  if (!st.isDirectory() && !st.isFile()) return 'other';
  if (st.isFile() && st.nlink > 1) return 'other';
  if (await place.blocked(real)) return 'blocked';
  return { real, st };
}
