/**
 * Where Keel's own code lives, so that no run's file tool reads or rewrites the server's code (a
 * write there would run as the server at the next start). From a source checkout that is the
 * checkout (the folder whose package.json declares the npm workspaces); from an npm install it is
 * the project that installed Keel (the folder holding the outermost `node_modules`), or that
 * `node_modules` folder itself when no project surrounds it (a global install).
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installation folders of this plugin, the SDK and the main script the process runs. */
export function keelInstallFolders(): string[] {
  const sources = [fileURLToPath(import.meta.url), sdkEntry(), process.argv[1]].filter((p): p is string => typeof p === 'string' && p !== '');
  const folders = new Set<string>();
  for (const source of sources) {
    const folder = installFolderOf(source);
    if (folder) folders.add(folder);
  }
  return [...folders];
}

function sdkEntry(): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve('@keel/plugin-sdk'));
  } catch {
    return undefined;
  }
}

/** The installation a file belongs to (see the module comment); null when it cannot be told. */
export function installFolderOf(file: string): string | null {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return null;
  }
  const parts = real.split(path.sep);
  const modules = parts.indexOf('node_modules');
  if (modules > 0) {
    const project = parts.slice(0, modules).join(path.sep) || path.sep;
    return existsSync(path.join(project, 'package.json')) ? project : path.join(project, 'node_modules');
  }
  // A source checkout: the outermost package.json that declares workspaces, else the nearest package.
  let packageRoot: string | null = null;
  let workspaceRoot: string | null = null;
  for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      packageRoot ??= dir;
      if (declaresWorkspaces(manifest)) workspaceRoot = dir;
    }
    if (path.dirname(dir) === dir) break;
  }
  return workspaceRoot ?? packageRoot;
}

function declaresWorkspaces(manifest: string): boolean {
  try {
    return Boolean((JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces);
  } catch {
    return false;
  }
}
