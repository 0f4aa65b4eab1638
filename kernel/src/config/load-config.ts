/**
 * Reads a config file, applies environment and command-line overrides, and validates the result.
 * Every problem is reported at once, each naming the file and the key.
 * Paths inside a config file are relative to that file; defaults and flags are relative to the cwd.
 */
import path from 'node:path';
import { BootError } from '../boot-error.js';
import { SchemaValidator } from '../validation/validator.js';
import { configPath, isPathSpecifier, readConfigJson, resolveUse } from './config-file.js';
import { kernelConfigSchema, type KernelConfig, type PluginEntry } from './kernel-config.js';

export { isPathSpecifier } from './config-file.js';

export interface ConfigOverrides {
  host?: string;
  port?: number;
  dataDir?: string;
  /** Keep only these plugins (by id, package or path); names not in the file are added. */
  plugins?: string[];
}

export interface LoadedConfig {
  config: KernelConfig;
  /** Absolute path of the file read, or null when built from an object. */
  file: string | null;
  /** Directory that relative paths in the config resolve against. */
  baseDir: string;
}

/** Env names of the flags, read when the flag is not given. */
export function overridesFromEnv(env: NodeJS.ProcessEnv): ConfigOverrides {
  const out: ConfigOverrides = {};
  if (env.KEEL_HOST) out.host = env.KEEL_HOST;
  if (env.KEEL_PORT) out.port = Number(env.KEEL_PORT);
  if (env.KEEL_DATA_DIR) out.dataDir = env.KEEL_DATA_DIR;
  return out;
}

export function loadConfigFile(file: string | undefined, overrides: ConfigOverrides = {}, cwd = process.cwd()): LoadedConfig {
  const absolute = configPath(file, cwd);
  return buildConfig(readConfigJson(absolute), overrides, { file: absolute, baseDir: path.dirname(absolute), cwd });
}

export function buildConfig(
  raw: unknown,
  overrides: ConfigOverrides = {},
  where: { file: string | null; baseDir: string; cwd?: string } = { file: null, baseDir: process.cwd() },
): LoadedConfig {
  const label = where.file ?? 'config';
  const cwd = where.cwd ?? process.cwd();
  const copy = structuredClone(raw ?? {});
  const problems = new SchemaValidator().check(kernelConfigSchema as unknown as Record<string, unknown>, copy, '');
  if (problems.length) throw new BootError(problems.map((p) => `${label}: ${p.field || '(root)'} ${p.message}`));
  const config = copy as KernelConfig;

  const server = config.server;
  server.dataDir = path.resolve(where.baseDir, server.dataDir);
  if (!(raw as { server?: { dataDir?: string } })?.server?.dataDir) server.dataDir = path.resolve(cwd, 'data');
  if (overrides.host !== undefined) server.host = overrides.host;
  if (overrides.port !== undefined) {
    if (!Number.isInteger(overrides.port) || overrides.port < 0 || overrides.port > 65535) {
      throw new BootError(`port must be an integer from 0 to 65535 (got ${String(overrides.port)}).`);
    }
    server.port = overrides.port;
  }
  if (overrides.dataDir !== undefined) server.dataDir = path.resolve(cwd, overrides.dataDir);

  config.plugins = config.plugins.map((entry) => ({ ...entry, use: resolveUse(entry.use, where.baseDir) }));
  if (overrides.plugins) config.plugins = selectPlugins(config.plugins, overrides.plugins, cwd);
  return { config, file: where.file, baseDir: where.baseDir };
}

/** The package a bare plugin name stands for: `inference` → `@keel/plugin-inference`. */
export function packageForName(name: string): string {
  return name.startsWith('@') || name.includes('/') ? name : `@keel/plugin-${name}`;
}

function selectPlugins(entries: PluginEntry[], names: string[], cwd: string): PluginEntry[] {
  return names.map((name) => {
    const wanted = isPathSpecifier(name) ? path.resolve(cwd, name) : packageForName(name);
    const found = entries.find((e) => e.use === wanted || e.use === name);
    return found ? { ...found, enabled: true } : { use: wanted, config: {}, enabled: true };
  });
}
