/**
 * The path rule of every policy write and of `POST /workspace/path-check` (reference §1.7): a
 * workspace path is a string, absolute, without `..` components or NUL characters, not longer
 * than the `maxPathLength` setting, naming an existing folder (links followed). It is stored as
 * its real path.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { realPathOf } from './real-path.js';

export interface PathCheck {
  path: string | null;
  normalized: string | null;
  absolute: boolean;
  exists: boolean;
  is_dir: boolean;
  valid: boolean;
  sentence: string;
  /** The real path of what exists (server-side only; never sent to a caller who did not give it). */
  real: string | null;
  /** What is wrong with it, if anything (server-side only). */
  problem: 'not_string' | 'empty' | 'too_long' | 'nul' | 'relative' | 'dot_dot' | 'missing' | 'not_folder' | null;
}

/** Shown for a path as the caller gave it (quoted, cut when very long). */
export function shownPath(value: string): string {
  // Control characters (NUL above all) are shown escaped, never sent raw.
  const printable = [...value.slice(0, 201)].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c)).join('');
  return printable.length > 200 || value.length > 201 ? `${printable.slice(0, 200)}…` : printable;
}

export async function checkPath(value: unknown, maxPathLength: number): Promise<PathCheck> {
  const base = { absolute: false, exists: false, is_dir: false, valid: false, real: null };
  type Problem = PathCheck['problem'];
  const problem = (p: Problem) => ({ problem: p });
  if (typeof value !== 'string') return { ...base, ...problem('not_string'), path: null, normalized: null, sentence: 'The path must be a string: an absolute path to an existing folder.' };
  if (value === '') return { ...base, ...problem('empty'), path: value, normalized: null, sentence: 'The path is empty: give an absolute path to an existing folder.' };
  if (value.length > maxPathLength) {
    return { ...base, ...problem('too_long'), path: shownPath(value), normalized: null, sentence: `The path is ${value.length} characters long, over the ${maxPathLength} a workspace path may have (workspaces setting maxPathLength).` };
  }
  if (value.includes('\u0000')) return { ...base, ...problem('nul'), path: shownPath(value), normalized: null, sentence: `${shownPath(value)} contains a NUL character; no folder has such a name.` };
  const absolute = path.isAbsolute(value);
  const normalized = path.normalize(value);
  const result = { ...base, path: value, normalized, absolute };
  if (!absolute) return { ...result, ...problem('relative'), sentence: `${value} is not an absolute path: give the folder's full path, starting with /.` };
  if (value.split(/[/\\]/).includes('..')) return { ...result, ...problem('dot_dot'), sentence: `${value} contains '..': give the folder's own absolute path.` };
  let isDir = false;
  let exists = false;
  try {
    const st = await stat(normalized);
    exists = true;
    isDir = st.isDirectory();
  } catch {
    // Missing or unreadable: not a folder that can be a workspace.
  }
  if (!exists) return { ...result, ...problem('missing'), sentence: `${value} does not exist: a workspace must be an existing folder.` };
  const real = await realPathOf(normalized);
  if (!isDir) return { ...result, ...problem('not_folder'), exists, real, sentence: `${value} is not a folder: a workspace is a folder.` };
  return { ...result, ...problem(null), exists, is_dir: true, valid: true, real, sentence: `${value} is an existing folder; it can be listed as a workspace.` };
}
