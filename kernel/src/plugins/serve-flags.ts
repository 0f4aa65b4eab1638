/**
 * The flags plugins add to `keel serve` (`PluginDefinition.serveFlags`): each sets one key of its
 * plugin's config for that run (`--no-indexer` → `{ indexer: false }`). Names are kebab-case, not one
 * of the kernel's own serve flags, and declared by one loaded plugin only.
 */
import type { AnyPlugin, ServeFlag } from '@keel/plugin-sdk';

/** The flags `keel serve` reads itself. */
export const KERNEL_SERVE_FLAGS = ['config', 'data-dir', 'plugins', 'port', 'host', 'help'] as const;

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** A serve flag with the plugin that declares it. */
export interface DeclaredServeFlag {
  name: string;
  flag: ServeFlag;
  plugin: AnyPlugin;
  configKey: string;
}

/** What is wrong with one plugin's `serveFlags` declaration. */
export function serveFlagShapeProblems(plugin: AnyPlugin): string[] {
  if (plugin.serveFlags === undefined) return [];
  if (typeof plugin.serveFlags !== 'object' || plugin.serveFlags === null) return [`plugin '${plugin.id}' serveFlags must be an object of name → {type, config, summary}.`];
  const problems: string[] = [];
  for (const [name, flag] of Object.entries(plugin.serveFlags)) {
    if (!NAME.test(name) || name.startsWith('no-')) problems.push(`plugin '${plugin.id}' serve flag '${name}' must be kebab-case (a-z, 0-9, dashes) and not start with 'no-' (a boolean flag takes --no-<name> by itself).`);
    else if ((KERNEL_SERVE_FLAGS as readonly string[]).includes(name)) problems.push(`plugin '${plugin.id}' declares the serve flag '--${name}', which is the kernel's own; pick another name.`);
    const f = flag as Partial<ServeFlag> | undefined;
    if ((f?.type !== 'boolean' && f?.type !== 'string') || typeof f.config !== 'string' || f.config === '' || typeof f.summary !== 'string') {
      problems.push(`plugin '${plugin.id}' serve flag '${name}' needs a type ('boolean' or 'string'), the config key it sets and a summary.`);
    }
  }
  return problems;
}

/** Every serve flag of the loaded plugins by name, and a sentence per name two plugins declare. */
export function collectServeFlags(loaded: ReadonlyArray<{ plugin: AnyPlugin; configKey: string }>): { flags: Map<string, DeclaredServeFlag>; problems: string[] } {
  const flags = new Map<string, DeclaredServeFlag>();
  const problems: string[] = [];
  for (const { plugin, configKey } of loaded) {
    for (const [name, flag] of Object.entries(plugin.serveFlags ?? {})) {
      const other = flags.get(name);
      if (other) problems.push(`the serve flag '--${name}' is declared by two plugins: '${other.plugin.id}' (${other.configKey}) and '${plugin.id}' (${configKey}); load only one of them.`);
      else flags.set(name, { name, flag, plugin, configKey });
    }
  }
  return { flags, problems };
}

/** How `keel --help` shows a flag: `--[no-]<name>` for a boolean, `--<name> <value>` for a string. */
export function serveFlagUsage({ name, flag }: DeclaredServeFlag): string {
  return flag.type === 'boolean' ? `--[no-]${name}` : `--${name} <value>`;
}
