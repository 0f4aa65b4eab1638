/**
 * Makes a directory and its missing parents, one level at a time. Node's `mkdirSync(…, {recursive:
 * true})` loops forever at full CPU where a parent exists but refuses new entries with ENOENT (any
 * path under `/proc`), so the walk here makes each missing level itself and lets that error out.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function makeDirectory(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    try {
      statSync(at);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const parent = path.dirname(at);
    missing.unshift(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing) {
    try {
      mkdirSync(level, { mode });
    } catch (err) {
      // Made meanwhile by another process: fine.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(level).isDirectory()) throw err;
    }
  }
  // An existing path must be a directory (mkdirSync reports this as EEXIST, or ENOTDIR below it).
  if (!missing.length && !statSync(at).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
}
