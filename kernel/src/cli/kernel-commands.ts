/**
 * The kernel's own commands. Each module is imported only when its command runs (the kernel
 * itself takes a second to import), so `keel --help` and plugin commands do not pay for them.
 */
import type { KernelCommandName } from '../plugins/plugin-commands.js';

export interface KernelCommand {
  /** Its lines in `keel --help`: the usage, then the description indented. */
  help: string;
  load(): Promise<(args: string[]) => Promise<number>>;
}

export const KERNEL_COMMANDS: Record<Exclude<KernelCommandName, 'help'>, KernelCommand> = {
  serve: {
    help: `keel serve [--config F] [--plugins a,b] [--port N] [--host H] [--data-dir D] [plugin flags]
    Boot the plugins the config names and listen (defaults: 127.0.0.1:8080, ./data,
    config/default.json). Stops gracefully on SIGTERM/SIGINT. The plugins' flags are listed below.`,
    load: async () => (await import('./serve-command.js')).serveCommand,
  },
  plugins: {
    help: `keel plugins [--config F]
    List the plugins installed here and the ones the config loads.`,
    load: async () => (await import('./plugins-command.js')).pluginsCommand,
  },
  token: {
    help: `keel token create --account A [--admin] [--tenant T] [--label L] [--data-dir D] [--config F]
    Print a new bearer token for account A (created if missing; --admin gives it the admin role).`,
    load: async () => (await import('./token-command.js')).tokenCommand,
  },
};

export function kernelCommand(name: string): KernelCommand | undefined {
  return Object.hasOwn(KERNEL_COMMANDS, name) ? KERNEL_COMMANDS[name as keyof typeof KERNEL_COMMANDS] : undefined;
}
