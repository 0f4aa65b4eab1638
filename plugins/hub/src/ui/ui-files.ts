/**
 * The files of the team page: `index.html`, `dist/**` and `styles/**` of `@keel/hub-team-page`,
 * and `client/**` mapped to `@keel/hub-client`'s `dist/`. Nothing else of either package is
 * reachable: a request path is decoded once (by the router), every segment is checked, the joined
 * path must stay inside its root (after symlinks too), and only page file types are served.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface UiFile {
  bytes: Buffer;
  contentType: string;
  mtime: Date;
  /** The path inside the page (`dist/main.js`), for cache decisions. */
  relative: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const PAGE_PREFIXES = ['dist/', 'styles/'];
const CLIENT_PREFIX = 'client/';

/** The folder of an installed package, found from its entry point (works for packages that do not export package.json). */
export function packageRoot(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.resolve(name)));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === name) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package.json of '${name}' not found above its entry point`);
    dir = parent;
  }
}

export interface UiRoots {
  /** The team page package folder. */
  page: string;
  /** The hub client's compiled modules. */
  client: string;
}

export function defaultUiRoots(): UiRoots {
  return { page: packageRoot('@keel/hub-team-page'), client: path.join(packageRoot('@keel/hub-client'), 'dist') };
}

/** True when `relative` is a plain relative path: no empty, `.` or `..` segments, no backslash or NUL. */
export function isSafeRelative(relative: string): boolean {
  if (relative === '' || relative.includes('\\') || relative.includes('\0')) return false;
  return relative.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

function contentTypeOf(relative: string): string | null {
  if (relative.endsWith('.d.ts.map')) return null;
  return CONTENT_TYPES[path.extname(relative).toLowerCase()] ?? null;
}

function inside(root: string, target: string): boolean {
  return target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

export class UiFiles {
  private roots: UiRoots | null = null;

  constructor(private readonly locate: () => UiRoots = defaultUiRoots) {}

  /** The file a page path names (`index.html`, `dist/x.js`, `client/index.js`), or null for anything else. */
  async read(relative: string): Promise<UiFile | null> {
    if (!isSafeRelative(relative)) return null;
    const contentType = contentTypeOf(relative);
    if (!contentType) return null;
    const roots = (this.roots ??= this.locate());
    let root: string;
    let sub: string;
    if (relative.startsWith(CLIENT_PREFIX)) {
      root = roots.client;
      sub = relative.slice(CLIENT_PREFIX.length);
    } else if (relative === 'index.html' || PAGE_PREFIXES.some((p) => relative.startsWith(p))) {
      root = roots.page;
      sub = relative;
    } else {
      return null;
    }
    const target = path.resolve(root, sub);
    if (!inside(root, target)) return null;
    try {
      const [realRoot, realTarget] = await Promise.all([realpath(root), realpath(target)]);
      if (!inside(realRoot, realTarget)) return null;
      const info = await stat(realTarget);
      if (!info.isFile()) return null;
      return { bytes: await readFile(realTarget), contentType, mtime: info.mtime, relative };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw err;
    }
  }
}
