/**
 * A config file's JSON, read with a sentence naming the file when it cannot be, and what a plugin
 * specifier in it means. Apart from validation (`load-config.ts`) so that `keel --help` lists the
 * config's plugins without loading the schema validator (ajv costs about a fifth of a second).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BootError } from '../boot-error.js';
import { DEFAULT_CONFIG_PATH } from './kernel-config.js';

/** The config file's absolute path: the one given, else the default, relative to `cwd`. */
export function configPath(file: string | undefined, cwd = process.cwd()): string {
  return path.resolve(cwd, file ?? DEFAULT_CONFIG_PATH);
}

export function readConfigJson(absolute: string): unknown {
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BootError(`${absolute}: cannot read the config file (${code ?? String(err)}). Pass --config <file> or set KEEL_CONFIG.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BootError(`${absolute}: not valid JSON (${(err as Error).message}).`);
  }
}

/** True when `use` names a file path rather than a package. */
export function isPathSpecifier(use: string): boolean {
  return use.startsWith('.') || path.isAbsolute(use);
}

/** A path specifier made absolute against the config's folder; a package name unchanged. */
export function resolveUse(use: string, baseDir: string): string {
  return isPathSpecifier(use) ? path.resolve(baseDir, use) : use;
}

/** The enabled plugin entries of a config file, read without validating the rest of it. */
export function readPluginEntries(file: string | undefined, cwd = process.cwd()): { file: string; baseDir: string; plugins: Array<{ use: string; configKey: string }> } {
  const absolute = configPath(file, cwd);
  const raw = readConfigJson(absolute) as { plugins?: unknown } | null;
  const entries: unknown = raw?.plugins ?? [];
  if (!Array.isArray(entries)) throw new BootError(`${absolute}: plugins must be an array.`);
  const baseDir = path.dirname(absolute);
  const plugins: Array<{ use: string; configKey: string }> = [];
  const problems: string[] = [];
  entries.forEach((entry: { use?: unknown; enabled?: unknown } | null, i) => {
    if (typeof entry?.use !== 'string') problems.push(`${absolute}: plugins[${i}].use must be a string.`);
    else if (entry.enabled !== false) plugins.push({ use: resolveUse(entry.use, baseDir), configKey: `plugins[${i}]` });
  });
  if (problems.length) throw new BootError(problems);
  return { file: absolute, baseDir, plugins };
}
