/**
 * One skill folder read once: its tree hash (what trust is recorded against), whether it carries
 * scripts, and its SKILL.md bytes from the same read (so what `read_skill` returns is what was judged).
 * Links are never followed: a link in a skill makes it unverifiable, whatever it points at.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';

export const SKILL_FILE = 'SKILL.md';

/** The skill names a shelf may hold and a caller may ask for: no dots, no separators, so never a path. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface TreeLimits {
  /** Files one skill folder may hold. */
  maxTreeFiles: number;
  /** Bytes all files of one skill folder may hold. */
  maxTreeBytes: number;
}

export interface SkillTree {
  /** `sha256:<hex>` over every file's relative path and bytes, in path order. */
  tree_hash: string;
  has_scripts: boolean;
  /** The SKILL.md bytes, or null when the folder has none. */
  skill_md: Buffer | null;
  /** Why the folder cannot be trusted as it is (links, special files); empty when none. */
  problems: string[];
}

/** Thrown when a folder is over a limit or unreadable: the sentence names why. */
export class SkillTreeError extends Error {}

export async function readSkillTree(folder: string, limits: TreeLimits): Promise<SkillTree> {
  const files: Array<{ rel: string; bytes: Buffer; executable: boolean }> = [];
  const problems: string[] = [];
  let total = 0;
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(dir, e.name);
      if (e.isSymbolicLink()) {
        problems.push(`${relPath} is a link (links in a skill are not followed)`);
        continue;
      }
      if (e.isDirectory()) {
        await walk(full, relPath);
        continue;
      }
      if (!e.isFile()) {
        problems.push(`${relPath} is not a regular file`);
        continue;
      }
      if (files.length >= limits.maxTreeFiles) throw new SkillTreeError(`it holds more than ${limits.maxTreeFiles} files (skills setting maxTreeFiles)`);
      const bytes = await readRegular(full, limits.maxTreeBytes - total);
      if (bytes === null) throw new SkillTreeError(`its files hold more than ${limits.maxTreeBytes} bytes (skills setting maxTreeBytes)`);
      total += bytes.length;
      const mode = (await lstat(full)).mode;
      files.push({ rel: relPath, bytes, executable: (mode & 0o111) !== 0 });
    }
  };
  await walk(folder, '');
  files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const hash = createHash('sha256');
  for (const f of files) {
    hash.update(`${f.rel}\0${f.bytes.length}\0`);
    hash.update(f.bytes);
  }
  return {
    tree_hash: `sha256:${hash.digest('hex')}`,
    has_scripts: files.some((f) => f.rel.startsWith('scripts/') || f.executable),
    skill_md: files.find((f) => f.rel === SKILL_FILE)?.bytes ?? null,
    problems,
  };
}

/** A regular file's bytes, opened without following a link; null when it holds more than `max` bytes. */
async function readRegular(file: string, max: number): Promise<Buffer | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new SkillTreeError(`${path.basename(file)} is not a regular file`);
    if (st.size > max) return null;
    const bytes = await handle.readFile();
    return bytes.length > max ? null : bytes;
  } finally {
    await handle.close();
  }
}

/** The sha256 of one file's bytes (`sha256:<hex>`), or null when it does not exist. */
export async function fileHash(file: string): Promise<string | null> {
  try {
    const bytes = await readRegular(file, 16 * 1024 * 1024);
    if (bytes === null) throw new SkillTreeError(`${path.basename(file)} holds more than 16 MiB`);
    return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
