/**
 * Turns plugin entries into plugin values: imports each by package name or path, checks its
 * shape, its SDK range and that ids are unique. Every problem is collected before failing.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { isPlugin, SDK_VERSION, type AnyPlugin } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';
import { isPathSpecifier } from '../config/config-file.js';
import { collectCommands, commandShapeProblems } from './plugin-commands.js';
import { collectServeFlags, serveFlagShapeProblems } from './serve-flags.js';

export interface LoadedPlugin {
  plugin: AnyPlugin;
  /** Where it came from (`@keel/plugin-inference`, `/abs/path/to/plugin`, or `inline`). */
  source: string;
  /** Default mount prefix (`mounts.default`). */
  prefix: string;
  /** Resolved prefix of every mount point, `default` included. */
  mounts: Record<string, string>;
  rawConfig: Record<string, unknown>;
  /** Key path of this entry in the config, for error messages (`plugins[2]`). */
  configKey: string;
}

export interface PluginRequest {
  /** A plugin value given directly (tests, embedding) or a specifier to import. */
  plugin?: AnyPlugin;
  use?: string;
  prefix?: string;
  mounts?: Record<string, string>;
  config?: Record<string, unknown>;
  configKey: string;
}

const ID_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;

export async function loadPlugins(requests: PluginRequest[], resolveFrom: string): Promise<LoadedPlugin[]> {
  const { loaded, problems } = await loadPluginsReporting(requests, resolveFrom);
  if (problems.length) throw new BootError(problems);
  return loaded;
}

/**
 * Loads what can be loaded and returns the problems instead of throwing, so the caller reports them
 * together with the config errors of the plugins that did load. `label` names the config file.
 */
export async function loadPluginsReporting(requests: PluginRequest[], resolveFrom: string, label?: string): Promise<{ loaded: LoadedPlugin[]; problems: string[] }> {
  const problems: string[] = [];
  const where = (request: PluginRequest, key = '') => `${label ? `${label}: ` : ''}${request.configKey}${key}`;
  const loaded: LoadedPlugin[] = [];
  for (const request of requests) {
    try {
      const plugin = request.plugin ?? (await importPlugin(request.use!, resolveFrom));
      const shapeProblems = checkShape(plugin);
      if (shapeProblems.length) {
        problems.push(...shapeProblems.map((p) => `${where(request)} (${request.use ?? plugin.id}): ${p}`));
        continue;
      }
      const mounts = resolveMounts(plugin, request);
      if (typeof mounts === 'string') {
        problems.push(`${where(request)} (${plugin.id}): ${mounts}`);
        continue;
      }
      loaded.push({
        plugin,
        source: request.use ?? 'inline',
        prefix: mounts.default!,
        mounts,
        rawConfig: request.config ?? {},
        configKey: request.configKey,
      });
    } catch (err) {
      problems.push(`${where(request, request.use === undefined ? '' : '.use')}: ${(err as Error).message}`);
    }
  }
  const seen = new Map<string, LoadedPlugin>();
  for (const entry of loaded) {
    const other = seen.get(entry.plugin.id);
    if (other) problems.push(`${label ? `${label}: ` : ''}plugin id '${entry.plugin.id}' is loaded twice (${other.configKey} ${other.source} and ${entry.configKey} ${entry.source}).`);
    else seen.set(entry.plugin.id, entry);
  }
  problems.push(...collectCommands(loaded).problems, ...collectServeFlags(loaded).problems);
  return { loaded, problems };
}

/** The prefix of every mount point: config entry first, then the plugin's defaults. */
function resolveMounts(plugin: AnyPlugin, request: PluginRequest): Record<string, string> | string {
  const declared = plugin.mounts ?? {};
  const unknown = Object.keys(request.mounts ?? {}).filter((name) => name !== 'default' && !(name in declared));
  if (unknown.length) return `mounts.${unknown[0]} is not a mount point of plugin '${plugin.id}' (it has: ${['default', ...Object.keys(declared)].join(', ')}).`;
  const out: Record<string, string> = { default: normalizePrefix(request.mounts?.default ?? request.prefix ?? plugin.defaultPrefix ?? '/') };
  for (const [name, point] of Object.entries(declared)) out[name] = normalizePrefix(request.mounts?.[name] ?? point.prefix);
  return out;
}

export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

async function importPlugin(use: string, resolveFrom: string): Promise<AnyPlugin> {
  const url = isPathSpecifier(use) ? pathToFileURL(resolvePathEntry(use)).href : resolvePackage(use, resolveFrom);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot import plugin '${use}': ${(err as Error).message}`, { cause: err });
  }
  const candidates = [mod.default, mod.plugin, ...Object.values(mod)];
  const found = candidates.find(isPlugin);
  if (!found) throw new Error(`'${use}' does not export a plugin made with definePlugin() (as default export or named 'plugin').`);
  return found;
}

function resolvePathEntry(file: string): string {
  if (!existsSync(file)) throw new Error(`plugin path '${file}' does not exist.`);
  if (!statSync(file).isDirectory()) return file;
  // A folder is a package: let its package.json "exports"/"main" decide the entry point.
  const require = createRequire(path.join(file, 'noop.js'));
  try {
    return require.resolve(file);
  } catch {
    throw new Error(`plugin folder '${file}' has no entry point (package.json "main"/"exports", or index.js); build it first.`);
  }
}

function resolvePackage(name: string, resolveFrom: string): string {
  const require = createRequire(path.join(resolveFrom, 'noop.js'));
  try {
    return pathToFileURL(require.resolve(name)).href;
  } catch {
    // Fall back to the kernel's own resolution (workspace installs).
    try {
      return import.meta.resolve(name);
    } catch {
      throw new Error(`plugin package '${name}' is not installed (npm install ${name}).`);
    }
  }
}

function checkShape(plugin: AnyPlugin): string[] {
  const problems: string[] = [];
  if (typeof plugin.id !== 'string' || !ID_PATTERN.test(plugin.id)) problems.push(`plugin id '${String(plugin.id)}' must be kebab-case (a-z, 0-9, dashes).`);
  if (plugin.id === 'core') problems.push(`plugin id 'core' is reserved for the kernel.`);
  if (typeof plugin.version !== 'string' || !semver.valid(plugin.version)) problems.push(`plugin '${plugin.id}' version '${String(plugin.version)}' is not a semver version.`);
  if (typeof plugin.setup !== 'function') problems.push(`plugin '${plugin.id}' has no setup() function.`);
  if (typeof plugin.sdk !== 'string' || !semver.validRange(plugin.sdk)) {
    problems.push(`plugin '${plugin.id}' sdk range '${String(plugin.sdk)}' is not a semver range.`);
  } else if (!semver.satisfies(SDK_VERSION, plugin.sdk)) {
    problems.push(`plugin '${plugin.id}' needs @keel/plugin-sdk ${plugin.sdk}, but this kernel provides ${SDK_VERSION}.`);
  }
  problems.push(...commandShapeProblems(plugin), ...serveFlagShapeProblems(plugin));
  if (plugin.headers !== undefined && !(Array.isArray(plugin.headers) && plugin.headers.every((h) => typeof h === 'string' && HEADER_NAME.test(h)))) {
    problems.push(`plugin '${plugin.id}' headers must be a list of HTTP header names (letters, digits, dashes).`);
  }
  return problems;
}
