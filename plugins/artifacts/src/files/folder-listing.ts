/**
 * The walk of `/files/list`: a folder's entries (folders first, then by lower-cased name), recursive
 * on request, bounded by `limit`, the depth, the entries looked at and a time budget. It never
 * follows a link out of its root, enters each real folder once, never opens a file (so a FIFO or a
 * device cannot block it) and skips what the policy refuses, counting what it hid. Every folder is
 * opened without following a final link and judged again where its descriptor really is
 * (`openFolder` of the workspaces package), and its entries are read through that descriptor: a
 * folder swapped for a link after the check is refused, never listed.
 */
import type { Dirent } from 'node:fs';
import { lstat, opendir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { openFolder, type OpenedFolder } from '@keel/plugin-workspaces';
import { canonicalOf, insidePath, type Root } from './file-roots.js';
import { extensionOf, familyOf, type Family } from './file-families.js';

export interface ListedEntry {
  path: string;
  name: string;
  kind: 'folder' | 'file';
  family: Family | 'folder';
  mount?: string;
  size_bytes?: number;
}

export interface ListingRequest {
  recursive: boolean;
  includeDirectories: boolean;
  families: Set<Family> | null;
  extensions: Set<string> | null;
  /** Lower-cased. */
  query: string | null;
  limit: number;
  /** Deepest level entered (1 = the folder's own entries). */
  maxDepth: number;
}

export interface ListingBounds {
  maxEntriesScanned: number;
  deadline: number;
  now: () => number;
}

export interface Hidden {
  outside_links: number;
  blocked: number;
  other: number;
}

export interface Listing {
  items: ListedEntry[];
  truncated: boolean;
  hidden: Hidden;
  /** Why the walk stopped early, as sentences (empty when it did not). */
  warnings: string[];
}

/** Whether a real path may be shown (not a data or credential folder, not refused by the policy). */
export type Visible = (real: string) => boolean;

interface Walk {
  root: Root;
  request: ListingRequest;
  bounds: ListingBounds;
  visible: Visible;
  visited: Set<string>;
  scanned: number;
  /** A scan or time bound was reached: nothing more is read. */
  exhausted: boolean;
  out: Listing;
}

const byName = (a: { name: string; folder: boolean }, b: { name: string; folder: boolean }) => {
  if (a.folder !== b.folder) return a.folder ? -1 : 1;
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
};

function wanted(walk: Walk, entry: ListedEntry): boolean {
  const { request } = walk;
  if (request.query && !`${entry.path} ${entry.name}`.toLowerCase().includes(request.query)) return false;
  if (entry.kind === 'folder') return request.includeDirectories && request.families === null && request.extensions === null;
  if (request.extensions && !request.extensions.has(extensionOf(entry.name))) return false;
  if (request.families && !request.families.has(entry.family as Family)) return false;
  return true;
}

/** Whether the page has room for more entries (the `limit`). */
function within(walk: Walk): boolean {
  if (walk.out.items.length < walk.request.limit) return true;
  walk.out.truncated = true;
  return false;
}

/**
 * Whether another folder may be read: past the scan bound or the time budget the walk lists what it
 * has read and reads nothing more (truncated, with a warning saying why).
 */
function mayRead(walk: Walk): boolean {
  if (walk.exhausted) return false;
  const { bounds, out } = walk;
  if (walk.scanned >= bounds.maxEntriesScanned) {
    out.warnings.push(`The listing stopped after looking at ${bounds.maxEntriesScanned} entries; list a smaller folder or narrow it with max_depth.`);
  } else if (bounds.now() > bounds.deadline) {
    out.warnings.push('The listing stopped at its time budget; list a smaller folder or narrow it with max_depth.');
  } else {
    return true;
  }
  walk.exhausted = true;
  out.truncated = true;
  return false;
}

/** Opens a folder of the walk, judged where it really is (inside the root, visible); null when refused. */
export async function openListed(root: Root, real: string, visible: Visible, shown: string): Promise<OpenedFolder> {
  return openFolder(real, shown, async (where) => (insidePath(where, root.real) && visible(where) ? null : `${shown} is not a folder you may list.`));
}

/** The entries of one opened folder, read up to the scan bound (sorted once read). */
async function entriesOf(walk: Walk, folder: string): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  let dir;
  try {
    dir = await opendir(folder);
  } catch {
    walk.out.hidden.other += 1;
    return entries;
  }
  try {
    for await (const entry of dir) {
      walk.scanned += 1;
      entries.push(entry);
      if (walk.scanned >= walk.bounds.maxEntriesScanned || walk.bounds.now() > walk.bounds.deadline) {
        mayRead(walk); // records why the rest of this folder and the walk were left out
        break;
      }
    }
  } catch {
    walk.out.hidden.other += 1;
  } finally {
    await dir.close().catch(() => undefined);
  }
  return entries;
}

async function walkFolder(walk: Walk, folder: string, depth: number, opened?: OpenedFolder): Promise<void> {
  if (!within(walk) || !mayRead(walk)) return;
  let handle = opened;
  if (!handle) {
    try {
      handle = await openListed(walk.root, folder, walk.visible, folder);
    } catch {
      walk.out.hidden.blocked += 1; // swapped or refused since it was seen: not listed
      return;
    }
  }
  const resolved: Array<{ name: string; folder: boolean; real: string; size: number; link: boolean }> = [];
  try {
    await readEntries(walk, handle.readPath, folder, resolved);
  } finally {
    await handle.handle.close().catch(() => undefined);
  }
  resolved.sort(byName);
  for (const entry of resolved) {
    if (!within(walk)) return;
    const shownPath = canonicalOf(walk.root, path.join(folder, entry.name));
    const listed: ListedEntry = entry.folder
      ? { path: shownPath, name: entry.name, kind: 'folder', family: 'folder' }
      : { path: shownPath, name: entry.name, kind: 'file', family: familyOf(entry.name), size_bytes: entry.size };
    if (wanted(walk, listed)) walk.out.items.push(listed);
    // A link back to this folder or one above it is a cycle: listed, never walked into.
    const cycle = entry.link && insidePath(folder, entry.real);
    if (entry.folder && walk.request.recursive && depth < walk.request.maxDepth && !cycle && !walk.visited.has(entry.real)) {
      walk.visited.add(entry.real);
      await walkFolder(walk, entry.real, depth + 1);
    }
  }
}

/** Reads and resolves the entries of a folder through `readPath` (its descriptor's path). */
async function readEntries(walk: Walk, readPath: string, folderReal: string, resolved: Array<{ name: string; folder: boolean; real: string; size: number; link: boolean }>): Promise<void> {
  for (const entry of await entriesOf(walk, readPath)) {
    const lexical = path.join(readPath, entry.name);
    let real: string;
    let info;
    try {
      if (entry.isSymbolicLink()) {
        real = await realpath(lexical);
        if (!insidePath(real, walk.root.real)) {
          walk.out.hidden.outside_links += 1;
          continue;
        }
        info = await stat(real);
      } else {
        info = await lstat(lexical);
        real = path.join(folderReal, entry.name);
      }
    } catch {
      walk.out.hidden.other += 1; // dangling link, vanished or unreadable entry
      continue;
    }
    if (!info.isDirectory() && !info.isFile()) {
      walk.out.hidden.other += 1; // FIFO, socket, device: never listed, never opened
      continue;
    }
    if (!walk.visible(real)) {
      walk.out.hidden.blocked += 1;
      continue;
    }
    resolved.push({ name: entry.name, folder: info.isDirectory(), real, size: info.size, link: entry.isSymbolicLink() });
  }
}

/** Lists `folder` (a real path inside `root`, opened and judged by the caller as `opened`). */
export async function listFolder(root: Root, folder: string, opened: OpenedFolder, request: ListingRequest, bounds: ListingBounds, visible: Visible): Promise<Listing> {
  const walk: Walk = { root, request, bounds, visible, visited: new Set([folder]), scanned: 0, exhausted: false, out: { items: [], truncated: false, hidden: { outside_links: 0, blocked: 0, other: 0 }, warnings: [] } };
  await walkFolder(walk, folder, 1, opened);
  return walk.out;
}
