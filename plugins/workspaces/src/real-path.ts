/** Real paths of paths that need not exist yet, and whole-component containment. */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Whether `p` is `dir` or lies under it, on whole path components. */
export function inside(p: string, dir: string): boolean {
  if (p === dir) return true;
  const rel = path.relative(dir, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

const MAX_DEPTH = 64;

/**
 * The real path of `p`, which need not exist: the deepest existing ancestor is resolved (links
 * followed) and the missing rest appended; a dangling link is followed to where it points.
 */
export async function realPathOf(p: string, depth = 0): Promise<string> {
  const abs = path.resolve(p);
  try {
    return await realpath(abs);
  } catch {
    // Missing (or unreadable): resolve the parent, then this component.
  }
  const parent = path.dirname(abs);
  if (parent === abs || depth > MAX_DEPTH) return abs;
  const base = await realPathOf(parent, depth + 1);
  const joined = path.join(base, path.basename(abs));
  try {
    if ((await lstat(joined)).isSymbolicLink()) return await realPathOf(path.resolve(base, await readlink(joined)), depth + 1);
  } catch {
    // Nothing there yet.
  }
  return joined;
}

/** `realPathOf` for setup time (configuration, once). */
export function realPathSync(p: string, depth = 0): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    // As above.
  }
  const parent = path.dirname(abs);
  if (parent === abs || depth > MAX_DEPTH) return abs;
  const base = realPathSync(parent, depth + 1);
  const joined = path.join(base, path.basename(abs));
  try {
    if (lstatSync(joined).isSymbolicLink()) return realPathSync(path.resolve(base, readlinkSync(joined)), depth + 1);
  } catch {
    // Nothing there yet.
  }
  return joined;
}
