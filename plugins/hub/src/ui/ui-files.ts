/**
 * The files of the team page: `index.html`, `favicon.svg`, `dist/**` and `styles/**` of `@keel/hub-team-page`,
 * and `client/**` mapped to `@keel/hub-client`'s `dist/`. Nothing else of either package is
 * served: only page file types, and no declaration maps. Keeping requests inside the folders
 * (segments, symlinks, regular files) is the SDK's `staticFolder`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page's icon (linked from index.html, so browsers never ask for /favicon.ico). */
export const FAVICON = 'favicon.svg';

const PAGE_PREFIXES = ['dist/', 'styles/'];

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

/** A file of the page package the page may load: index.html, its modules and styles (no declaration maps). */
export function isPageFile(relative: string): boolean {
  return (relative === 'index.html' || relative === FAVICON || PAGE_PREFIXES.some((p) => relative.startsWith(p))) && isClientFile(relative);
}

/** A compiled module of the hub client the page may load (no declaration maps). */
export function isClientFile(relative: string): boolean {
  return !relative.endsWith('.d.ts.map');
}
