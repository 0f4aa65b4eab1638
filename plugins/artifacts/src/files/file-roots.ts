/**
 * Where `/files/list` may look, for one caller (reference gateway-surfaces §2.7): the main root
 * (setting `files.root`, else the gateway OS user's home folder) and one mount per reachable folder
 * of the caller's effective workspace set that lies outside it, named by a short alias. A path is
 * resolved against these roots like every canonical server path, then judged by the same policy:
 * the effective mode of its real path (deny → refused) and the built-in refusals (data and
 * credential folders → refused).
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { badRequest, forbidden, serviceUnavailable } from '@keel/plugin-sdk';

export interface Root {
  /** Real path. */
  real: string;
  /** null for the main root; the alias of a mount. */
  alias: string | null;
}

export interface PolicyRow {
  path: string;
  mode: 'ro' | 'rw' | 'deny';
}

/** The parts of the effective set (workspaces.service `effective()`) a listing is judged by. */
export interface Reach {
  posture: 'any_except_denied' | 'allowed_only';
  defaultMode: 'ro' | 'rw' | null;
  /** Longest path first. */
  rows: PolicyRow[];
}

/** Whether `child` is `parent` or lies inside it (whole path components). */
export function insidePath(child: string, parent: string): boolean {
  if (child === parent) return true;
  const base = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(base);
}

/** Reads the effective set defensively (its type is `unknown` in Contract 1). */
export function reachOf(effective: unknown): Reach {
  const set = (effective ?? {}) as { posture?: unknown; default_mode?: unknown; folders?: unknown };
  const posture = set.posture === 'any_except_denied' ? 'any_except_denied' : 'allowed_only';
  const defaultMode = set.default_mode === 'ro' || set.default_mode === 'rw' ? set.default_mode : null;
  const rows: PolicyRow[] = [];
  for (const row of Array.isArray(set.folders) ? (set.folders as unknown[]) : []) {
    const { path: p, mode } = (row ?? {}) as { path?: unknown; mode?: unknown };
    if (typeof p === 'string' && path.isAbsolute(p) && (mode === 'ro' || mode === 'rw' || mode === 'deny')) rows.push({ path: p, mode });
  }
  rows.sort((a, b) => b.path.length - a.path.length);
  return { posture, defaultMode, rows };
}

/** The effective mode of a real path: the longest containing row, else the default under any_except_denied, else deny. */
export function modeOf(reach: Reach, real: string): 'ro' | 'rw' | 'deny' {
  for (const row of reach.rows) if (insidePath(real, row.path)) return row.mode;
  return reach.posture === 'any_except_denied' ? (reach.defaultMode ?? 'deny') : 'deny';
}

/** `a-z0-9_-` slug of a folder's base name, runs of anything else as one `-`, at most 32 characters. */
export function slugOf(folder: string): string {
  const slug = path.basename(folder).toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32).replace(/-+$/, '');
  return slug === '' ? 'mount' : slug;
}

/** Aliases of mount folders: the slug, or on a clash `<slug>_<shortest free hex of sha256(path)>`. */
export function aliasesOf(folders: string[], taken: Set<string> = new Set()): Map<string, string> {
  const bySlug = new Map<string, string[]>();
  for (const folder of folders) {
    const slug = slugOf(folder);
    bySlug.set(slug, [...(bySlug.get(slug) ?? []), folder]);
  }
  const aliases = new Map<string, string>();
  const used = new Set(taken);
  for (const [slug, group] of [...bySlug].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (group.length === 1 && !used.has(slug)) {
      aliases.set(group[0]!, slug);
      used.add(slug);
      continue;
    }
    for (const folder of [...group].sort()) {
      const hex = createHash('sha256').update(folder).digest('hex');
      let alias: string | null = null;
      for (let length = 8; length <= 32 && alias === null; length += 4) {
        const candidate = `${slug.slice(0, 32 - length - 1)}_${hex.slice(0, length)}`;
        if (!used.has(candidate)) alias = candidate;
      }
      for (let n = 2; alias === null; n += 1) if (!used.has(`${slug}_${n}`)) alias = `${slug}_${n}`;
      aliases.set(folder, alias);
      used.add(alias);
    }
  }
  return aliases;
}

export interface Roots {
  main: Root;
  mounts: Root[];
}

/** The main root and the caller's mounts (its reachable workspaces outside the main root). */
export async function rootsFor(configuredRoot: string, reach: Reach): Promise<Roots> {
  const wanted = configuredRoot || os.homedir();
  const real = path.isAbsolute(wanted) ? await realpath(wanted).catch(() => null) : null;
  if (!real) throw serviceUnavailable(`The main folder of /files/list (setting files.root) is not an existing absolute folder; an admin must fix the setting.`);
  const main: Root = { real, alias: null };
  // A workspace inside the main root is reached through it, unless the main root itself is refused.
  const mainReachable = modeOf(reach, main.real) !== 'deny';
  const outside: string[] = [];
  for (const row of reach.rows) {
    if (row.mode === 'deny' || row.path === main.real || insidePath(main.real, row.path) || (mainReachable && insidePath(row.path, main.real))) continue;
    const real = await realpath(row.path).catch(() => null);
    if (real && !outside.includes(real)) outside.push(real);
  }
  const aliases = aliasesOf(outside);
  const mounts = outside.map((real) => ({ real, alias: aliases.get(real)! })).sort((a, b) => (a.alias < b.alias ? -1 : 1));
  return { main, mounts };
}

export interface Located {
  root: Root;
  /** The path before following links (inside the root by construction). */
  lexical: string;
}

// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A canonical server path: `@` prefix ignored, backslashes as `/`; absolute only under a root (the
 * longest wins); relative under a mount when its first segment is an alias, else under the main
 * root. `..` may not climb out of the root.
 */
export function locate(roots: Roots, asked: string): Located {
  if (CONTROL.test(asked)) throw badRequest('path contains control characters.', { code: 'invalid_path', field: 'path' });
  const cleaned = asked.replace(/^@/, '').replace(/\\/g, '/');
  const all = [roots.main, ...roots.mounts];
  if (path.isAbsolute(cleaned)) {
    const normal = path.resolve(cleaned);
    const root = all.filter((r) => insidePath(normal, r.real)).sort((a, b) => b.real.length - a.real.length)[0];
    if (!root) throw forbidden(`${cleaned} is outside the folders you may list; list the empty path to see where you may start.`);
    return { root, lexical: normal };
  }
  const segments = cleaned.split('/').filter((s) => s !== '' && s !== '.');
  const mount = segments.length > 0 ? roots.mounts.find((m) => m.alias === segments[0]) : undefined;
  const root = mount ?? roots.main;
  const rest = mount ? segments.slice(1) : segments;
  const lexical = path.resolve(root.real, ...rest);
  if (!insidePath(lexical, root.real)) throw forbidden(`${cleaned} leads outside the folder it names; give a path inside it.`);
  return { root, lexical };
}

/** The canonical path of a real path under its root (`rel/path` or `<alias>/rel/path`). */
export function canonicalOf(root: Root, real: string): string {
  const relative = path.relative(root.real, real).split(path.sep).join('/');
  if (root.alias === null) return relative;
  return relative === '' ? root.alias : `${root.alias}/${relative}`;
}
