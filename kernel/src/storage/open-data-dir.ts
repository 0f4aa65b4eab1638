/**
 * Makes the data directory (owner-only) and opens its LMDB environment. A directory that cannot be
 * made or written is a boot refusal naming it and what to change, not a stack.
 */
import type { RootDatabase } from 'lmdb';
import { BootError } from '../boot-error.js';
import { openLmdbEnv } from './lmdb-env.js';
import { makeDirectory } from './make-directory.js';

const WHY: Record<string, string> = {
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file with that name is in the way',
  EACCES: 'this user may not write there',
  EPERM: 'this user may not write there',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  // A parent that exists but takes no new directories (/proc, /sys).
  ENOENT: 'this location does not take new directories',
};

export function openDataDir(dataDir: string): RootDatabase {
  try {
    makeDirectory(dataDir);
    return openLmdbEnv(dataDir);
  } catch (err) {
    const why = WHY[(err as NodeJS.ErrnoException).code ?? ''];
    if (!why) throw err;
    throw new BootError(`Cannot use the data directory ${dataDir}: ${why}; choose another with --data-dir (or KEEL_DATA_DIR, server.dataDir).`, { cause: err });
  }
}
