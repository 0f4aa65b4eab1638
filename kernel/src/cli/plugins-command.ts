/** `keel plugins`: the plugins installed here and the ones the config loads. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isPathSpecifier } from '../config/load-config.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';

interface InstalledPlugin {
  name: string;
  version: string;
  description: string;
}

export async function pluginsCommand(args: string[]): Promise<number> {
  const { values } = usage(() => parseArgs({ args, strict: true, allowPositionals: true, options: configFlags }));
  const loaded = configFromFlags(values);
  const installed = findInstalledPlugins(process.cwd());
  const out: string[] = [];
  out.push(`Installed plugins (${installed.length}):`);
  for (const p of installed) out.push(`  ${p.name.padEnd(36)} ${p.version.padEnd(8)} ${p.description}`);
  if (!installed.length) out.push('  (none found in node_modules)');
  out.push('', `Loaded by ${loaded.file ?? 'config'} (${loaded.config.plugins.length}):`);
  for (const entry of loaded.config.plugins) {
    const state = entry.enabled === false ? 'disabled' : 'enabled';
    const known = isPathSpecifier(entry.use) ? (existsSync(entry.use) ? 'path' : 'path missing') : installed.some((p) => p.name === entry.use) ? 'installed' : 'not installed';
    out.push(`  ${entry.use.padEnd(36)} ${state.padEnd(9)} prefix ${entry.prefix ?? '(plugin default)'}  [${known}]`);
  }
  if (!loaded.config.plugins.length) out.push('  (none: only the kernel routes)');
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}

/** Packages named `@keel/plugin-*` or carrying the `keel-plugin` keyword, in every node_modules up from `dir`. */
export function findInstalledPlugins(dir: string): InstalledPlugin[] {
  const found = new Map<string, InstalledPlugin>();
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const modules = path.join(current, 'node_modules');
    if (existsSync(modules)) {
      for (const pkgDir of packageDirs(modules)) {
        const pkg = readPackage(pkgDir);
        if (!pkg || found.has(pkg.name)) continue;
        if (pkg.name.startsWith('@keel/plugin-') && pkg.name !== '@keel/plugin-sdk' || pkg.keywords?.includes('keel-plugin')) {
          found.set(pkg.name, { name: pkg.name, version: pkg.version ?? '?', description: pkg.description ?? '' });
        }
      }
    }
    if (path.dirname(current) === current) break;
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function packageDirs(modules: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    const full = path.join(modules, name);
    if (name.startsWith('@')) {
      for (const sub of safeReaddir(full)) out.push(path.join(full, sub));
    } else {
      out.push(full);
    }
  }
  return out;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readPackage(dir: string): { name: string; version?: string; description?: string; keywords?: string[] } | null {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string };
  } catch {
    return null;
  }
}
