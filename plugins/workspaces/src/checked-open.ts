/**
 * Opens a path a policy check allowed, and judges what was really opened, not only the path: the
 * open never follows a final link (`O_NOFOLLOW`) and never waits (`O_NONBLOCK`: a FIFO or a device
 * cannot hang it), the descriptor must be a regular file or a folder (`fstat`), and the descriptor's
 * real location (`/proc/self/fd/<n>` on Linux) is judged again by the policy. A path swapped between
 * the check and the open is refused, so there is no check-then-use race. A new file is created
 * through the descriptor of its verified parent folder, never by a path that could have moved.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/** A refusal the tool reports as its error (the sentence names the path as the run gave it). */
export class ToolRefusal extends Error {}

/** Judges a real location: null when allowed, else the refusal sentence. */
export type LocationJudge = (real: string) => Promise<string | null>;

/** Where a descriptor really points; null when the system cannot tell (no `/proc/self/fd`). */
async function locationOf(fh: FileHandle): Promise<string | null> {
  try {
    return await readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return null;
  }
}

/** A path that opens exactly what `fh` is (Linux), else `fallback`. */
function pathOfDescriptor(fh: FileHandle, fallback: string, procAvailable: boolean): string {
  return procAvailable ? `/proc/self/fd/${fh.fd}` : fallback;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSymbolicLink()) return 'a link';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}

export interface OpenedFolder {
  handle: FileHandle;
  /** A path that reads this very folder (its descriptor's path on Linux). */
  readPath: string;
}

/** Opens a folder for listing. */
export async function openFolder(real: string, shown: string, judge: LocationJudge): Promise<OpenedFolder> {
  await precheck(real, shown, 'dir');
  const handle = await open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isDirectory()) throw new ToolRefusal(`${shown} is ${kindOf(st)}, not a folder.`);
    const where = await verify(handle, real, st, shown, judge);
    return { handle, readPath: pathOfDescriptor(handle, real, where !== null) };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Opens an existing regular file for reading, or for reading and writing. */
export async function openFile(real: string, shown: string, judge: LocationJudge, write: boolean): Promise<FileHandle> {
  await precheck(real, shown, 'file');
  const handle = await open(real, (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new ToolRefusal(`${shown} is ${kindOf(st)}; only regular files can be ${write ? 'edited' : 'read'}.`);
    refuseHardLink(st, shown);
    await verify(handle, real, st, shown, judge);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Opens a regular file for writing, created when missing (its content is left as it was: the
 * caller truncates once the descriptor is judged). The file is created inside the descriptor of
 * its parent folder, which is judged first.
 */
export async function openFileForWrite(real: string, shown: string, judge: LocationJudge): Promise<FileHandle> {
  await precheck(real, shown, 'file', true);
  const base = path.basename(real);
  const parent = await open(path.dirname(real), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
  let handle: FileHandle;
  try {
    const st = await parent.stat();
    if (!st.isDirectory()) throw new ToolRefusal(`A part of ${shown} is not a folder.`);
    // The parent is judged as the place the file will have.
    const where = await verify(parent, path.dirname(real), st, shown, (dir) => judge(path.join(dir, base)));
    handle = await open(path.join(pathOfDescriptor(parent, path.dirname(real), where !== null), base), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o644);
  } finally {
    await parent.close();
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new ToolRefusal(`${shown} is ${kindOf(st)}; only regular files can be written.`);
    refuseHardLink(st, shown);
    await verify(handle, real, st, shown, judge);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * A file with several names (hard links) is refused: its other names may lie anywhere on the same
 * file system (outside the workspace, in a protected folder), and no path check can see them.
 * Nothing the gateway writes makes a second name.
 */
function refuseHardLink(st: Stats, shown: string): void {
  if (st.nlink > 1) throw new ToolRefusal(`${shown} has other names (hard links) elsewhere on the disk, which the workspace policy cannot see; copy the file instead.`);
}

/** Refuses what is plainly not a file or folder before opening it (opening a device can itself act). */
async function precheck(real: string, shown: string, want: 'file' | 'dir', mayBeMissing = false): Promise<void> {
  let st: Stats;
  try {
    st = await lstat(real);
  } catch (err) {
    if (mayBeMissing && (err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (want === 'dir' ? st.isDirectory() : st.isFile()) return;
  if (want === 'file' && st.isDirectory()) throw new ToolRefusal(`${shown} is a folder, not a file.`);
  throw new ToolRefusal(`${shown} is ${kindOf(st)}; the file tools open only regular files and folders.`);
}

/**
 * Judges the descriptor's real location. Without `/proc/self/fd`, the descriptor must still be the
 * object at the checked path (same device and inode). Answers the location, or null when the
 * system cannot tell it.
 */
async function verify(handle: FileHandle, real: string, st: Stats, shown: string, judge: LocationJudge): Promise<string | null> {
  const where = await locationOf(handle);
  if (where === null) {
    const now = await lstat(real).catch(() => null);
    if (!now || now.dev !== st.dev || now.ino !== st.ino) throw new ToolRefusal(`${shown} changed while it was being opened; try again.`);
    return null;
  }
  const refusal = await judge(where.replace(/ \(deleted\)$/, ''));
  if (refusal) throw new ToolRefusal(refusal);
  return where;
}
