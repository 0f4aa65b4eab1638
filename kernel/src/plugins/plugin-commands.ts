/**
 * The commands plugins add to `keel` (`PluginDefinition.commands`): each name well formed, not one
 * of the kernel's own, and declared by one loaded plugin only. Checked whenever plugins load, so a
 * config whose plugins clash is refused by `keel serve` as well as by the command line.
 */
import type { AnyPlugin, PluginCommand } from '@keel/plugin-sdk';

/** The verbs the kernel's command line answers itself (see `cli/kernel-commands.ts`). */
export const KERNEL_COMMAND_NAMES = ['serve', 'plugins', 'token', 'help'] as const;
export type KernelCommandName = (typeof KERNEL_COMMAND_NAMES)[number];

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** A plugin command with the plugin that declares it. */
export interface DeclaredCommand {
  name: string;
  command: PluginCommand;
  plugin: AnyPlugin;
  /** The plugin's config entry, for messages (`plugins[3]`). */
  configKey: string;
}

/** What is wrong with one plugin's `commands` declaration. */
export function commandShapeProblems(plugin: AnyPlugin): string[] {
  if (plugin.commands === undefined) return [];
  if (typeof plugin.commands !== 'object' || plugin.commands === null) return [`plugin '${plugin.id}' commands must be an object of name → {summary, usage, load}.`];
  const problems: string[] = [];
  for (const [name, command] of Object.entries(plugin.commands)) {
    if (!NAME.test(name)) problems.push(`plugin '${plugin.id}' command '${name}' must be kebab-case (a-z, 0-9, dashes).`);
    else if ((KERNEL_COMMAND_NAMES as readonly string[]).includes(name)) problems.push(`plugin '${plugin.id}' declares the command '${name}', which is the kernel's own (keel ${name}); pick another name.`);
    const c = command as Partial<PluginCommand> | undefined;
    if (typeof c?.summary !== 'string' || typeof c.usage !== 'string' || typeof c.load !== 'function') {
      problems.push(`plugin '${plugin.id}' command '${name}' needs a summary and a usage (strings) and load() (a function importing its module).`);
    }
  }
  return problems;
}

/** Every command of the loaded plugins by name, and a sentence per name two plugins declare. */
export function collectCommands(loaded: ReadonlyArray<{ plugin: AnyPlugin; configKey: string }>): { commands: Map<string, DeclaredCommand>; problems: string[] } {
  const commands = new Map<string, DeclaredCommand>();
  const problems: string[] = [];
  for (const { plugin, configKey } of loaded) {
    for (const [name, command] of Object.entries(plugin.commands ?? {})) {
      const other = commands.get(name);
      if (other) problems.push(`the command 'keel ${name}' is declared by two plugins: '${other.plugin.id}' (${other.configKey}) and '${plugin.id}' (${configKey}); load only one of them.`);
      else commands.set(name, { name, command: command as PluginCommand, plugin, configKey });
    }
  }
  return { commands, problems };
}
