/**
 * Opening the file a request names, inside one folder and nowhere else. The request path is
 * checked segment by segment (no `..`, `.`, empty segments, backslashes, NUL, dotfiles unless
 * allowed), resolved through symlinks and kept inside the folder's real path, then opened without
 * following a final symlink and without blocking (a FIFO would hang a plain open). What is served
 * is judged on the opened descriptor: it must be a regular file and, where the system can tell
 * (`/proc/self/fd` on Linux), the file the descriptor really names must still be inside the folder,
 * so a symlink swapped in between the check and the open is refused too.
 */
import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface ConfinedFile {
  handle: FileHandle;
  stats: Stats;
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** Errors that mean "no such servable file" rather than a server fault. */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'EPERM', 'ENXIO', 'EISDIR', 'ENAMETOOLONG', 'EINVAL']);

/** The segments of a request path inside a folder, or null when the path may not name a file there. */
export function safeSegments(relative: string, allowDotfiles = false): string[] | null {
  if (relative === '' || relative.includes('\\') || relative.includes('\0') || relative.startsWith('/')) return null;
  const segments = relative.split('/');
  const ok = segments.every((s) => s !== '' && s !== '.' && s !== '..' && (allowDotfiles || !s.startsWith('.')));
  return ok ? segments : null;
}

function inside(root: string, target: string): boolean {
  return target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Where an open descriptor really points, or null where the system does not say. */
async function descriptorPath(fd: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

/**
 * Opens `relative` inside `root` as a regular file, or returns null when there is no such file
 * there (missing, a directory, a device, a FIFO, a socket, outside the folder). The caller owns
 * the handle and must close it.
 */
export async function openConfinedFile(root: string, relative: string, allowDotfiles = false): Promise<ConfinedFile | null> {
  const segments = safeSegments(relative, allowDotfiles);
  if (!segments) return null;
  let handle: FileHandle | null = null;
  try {
    const realRoot = await realpath(root);
    const real = await realpath(path.join(realRoot, ...segments));
    if (!inside(realRoot, real)) return null;
    handle = await open(real, OPEN_FLAGS);
    const stats = await handle.stat();
    const opened = stats.isFile() ? await descriptorPath(handle.fd) : null;
    if (!stats.isFile() || (opened !== null && !inside(realRoot, opened))) {
      await handle.close();
      return null;
    }
    return { handle, stats };
  } catch (err) {
    await handle?.close();
    if (MISSING.has((err as NodeJS.ErrnoException).code ?? '')) return null;
    throw err;
  }
}

/** The whole content of an opened file (for small files a policy is computed from, like a page's CSP). */
export async function readWhole(file: ConfinedFile): Promise<Buffer> {
  const bytes = Buffer.alloc(file.stats.size);
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesRead } = await file.handle.read(bytes, offset, bytes.length - offset, offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return bytes.subarray(0, offset);
}
