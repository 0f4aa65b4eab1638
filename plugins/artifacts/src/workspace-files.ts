/**
 * Files of a workspace the policy allowed, used on the descriptor: a source is opened without
 * following a final link and without blocking (a FIFO would hang), and served only when it is a
 * regular file that really is the path the policy judged; a destination is written to a temporary
 * sibling, fsynced, then renamed (or linked when nothing may be replaced), so nothing half written
 * ever has the destination's name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, lstat, mkdir, open, readlink, realpath, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { streamToNewFile } from '@keel/plugin-sdk';
import { Transform, type TransformCallback } from 'node:stream';

const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type OpenedSource = { ok: true; handle: FileHandle; stats: Stats } | { ok: false; why: 'missing' | 'not_a_file' | 'moved' | 'hard_link' };

/** Longest name of one path component (Linux NAME_MAX, in bytes). */
const NAME_MAX_BYTES = 255;

/** The first component of `p` longer than the file system allows, or null. */
export function overlongName(p: string): string | null {
  return p.split(path.sep).find((part) => Buffer.byteLength(part) > NAME_MAX_BYTES) ?? null;
}

/** Opens the file the policy allowed at `realPath`, judged on the descriptor. */
export async function openSource(realPath: string): Promise<OpenedSource> {
  let handle: FileHandle;
  try {
    handle = await open(realPath, READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG') return { ok: false, why: 'missing' };
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return { ok: false, why: 'not_a_file' };
    throw err;
  }
  const stats = await handle.stat();
  const opened = await descriptorPath(handle.fd);
  if (!stats.isFile() || (opened !== null && opened !== realPath)) {
    await handle.close();
    return { ok: false, why: stats.isFile() ? 'moved' : 'not_a_file' };
  }
  // A file with other names (hard links) may be a file outside the workspace or in a protected
  // folder under a second name; no path check can see them (as the file tools and the content route).
  if (stats.nlink > 1) {
    await handle.close();
    return { ok: false, why: 'hard_link' };
  }
  return { ok: true, handle, stats };
}

/** Where an open descriptor really points (Linux), else null. */
async function descriptorPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

export type Destination = 'absent' | 'file' | 'folder';

export async function destinationState(realPath: string): Promise<Destination> {
  try {
    return (await lstat(realPath)).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'absent';
  }
}

/** The real path of an existing folder, or null when it does not exist (or is not a folder). */
export async function existingFolder(folder: string): Promise<string | null> {
  try {
    const real = await realpath(folder);
    return (await lstat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

export class DestinationExists extends Error {}

/** The policy refused the folder as the descriptor really found it (the sentence says why). */
export class DestinationRefused extends Error {}

/**
 * Makes the missing folders of `folder` (a real path the policy allowed) one by one, each inside the
 * descriptor of the one above it, so a link swapped into the path meanwhile can never send a new
 * folder elsewhere: the deepest existing folder is opened without following links and judged where
 * it really is (`judge` answers a refusal sentence or null), then every step is `mkdir` and `open`
 * through `/proc/self/fd/<n>`. Answers the real path of `folder`. Linux only (elsewhere: plain mkdir).
 */
export async function makeFolders(folder: string, judge: (real: string) => Promise<string | null>): Promise<string> {
  if (process.platform !== 'linux') {
    await mkdir(folder, { recursive: true });
    return folder;
  }
  const missing: string[] = [];
  let existing = folder;
  while ((await existingFolder(existing)) === null) {
    const up = path.dirname(existing);
    if (up === existing) throw new DestinationRefused(`No folder of '${folder}' exists.`);
    missing.unshift(path.basename(existing));
    existing = up;
  }
  let dir = await openFolderNoFollow(existing);
  try {
    const where = await descriptorPath(dir.fd);
    if (where === null) throw new DestinationRefused(`The folder '${existing}' could not be verified; try again.`);
    const refusal = await judge(path.join(where, ...missing));
    if (refusal) throw new DestinationRefused(refusal);
    for (const segment of missing) {
      const next = `/proc/self/fd/${dir.fd}/${segment}`;
      await mkdir(next).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      const child = await openFolderNoFollow(next);
      await dir.close();
      dir = child;
    }
    const real = await descriptorPath(dir.fd);
    if (real === null) throw new DestinationRefused(`The folder '${folder}' could not be verified; try again.`);
    return real;
  } finally {
    await dir.close();
  }
}

async function openFolderNoFollow(folder: string): Promise<FileHandle> {
  try {
    return await open(folder, FOLDER_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw new DestinationRefused(`'${folder}' is not a folder any more (it changed while it was checked); try again.`);
    throw err;
  }
}

/**
 * Writes `source` as `name` inside `folder` (a real path already checked), through the folder's
 * descriptor: the folder is opened without following a link, its real location is judged again
 * (`judgeTarget(real path the file will have)` answers a refusal sentence or null), and every later
 * step names files through `/proc/self/fd/<n>` on Linux, so a folder swapped meanwhile is never
 * written into. Bytes go to a temporary sibling (`O_EXCL`), are fsynced, then renamed (`overwrite`)
 * or hard-linked (DestinationExists when the name was taken meanwhile). Answers the bytes written
 * and their sha256.
 */
export async function writeIntoFolder(source: Readable, folder: string, name: string, overwrite: boolean, judgeTarget: (real: string) => Promise<string | null>): Promise<{ bytes: number; sha256: string }> {
  let dir: FileHandle;
  try {
    dir = await open(folder, FOLDER_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw new DestinationRefused(`The folder of '${name}' changed while it was checked; try again.`);
    throw err;
  }
  try {
    const where = (await descriptorPath(dir.fd)) ?? folder;
    const refusal = await judgeTarget(path.join(where, name));
    if (refusal) throw new DestinationRefused(refusal);
    const base = process.platform === 'linux' ? `/proc/self/fd/${dir.fd}` : folder;
    const target = path.join(base, name);
    const tmp = path.join(base, `.${name.slice(0, 100)}.${randomBytes(6).toString('hex')}.keel-export`);
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
        bytes += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      // `wx` (in streamToNewFile): O_EXCL, so the temporary name cannot be a link planted in advance.
      await streamToNewFile(source, [meter], tmp, 0o644);
      await syncPath(tmp);
      if (overwrite) {
        await rename(tmp, target);
      } else {
        try {
          await link(tmp, target);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new DestinationExists();
          throw err;
        }
      }
      await dir.sync();
      return { bytes, sha256: hash.digest('hex') };
    } finally {
      await rm(tmp, { force: true });
    }
  } finally {
    await dir.close();
  }
}

async function syncPath(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
