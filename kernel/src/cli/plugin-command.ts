/**
 * Runs a command a plugin of the config declares (`keel notes count`). The plugins are imported
 * to read their declarations, never set up; the command's module is imported only now, and the
 * kernel only if the command asks to `boot()` its plugin (alone with the plugins it depends on, no
 * listener, no kernel routes) or to `serve()` the whole config without a listener until a signal.
 * Whatever was booted is stopped when the command ends.
 */
import { providedValues, type CommandContext, type ServeOptions } from '@keel/plugin-sdk';
import type { LoadedConfig } from '../config/load-config.js';
import type { PluginEntry } from '../config/kernel-config.js';
import { loadPlugins, type LoadedPlugin } from '../plugins/load-plugins.js';
import { collectCommands, KERNEL_COMMAND_NAMES, type DeclaredCommand } from '../plugins/plugin-commands.js';
import { takeConfigFlags } from './config-flags.js';
import { configFromFlags } from './parse-flags.js';
import { isUsageError, UsageError } from './usage-error.js';

const COMMAND_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** Names hang dump files (`hang-<time>-<process>.json`): lower case, so no clash with the time's `Z`. */
const PROCESS_NAME = COMMAND_NAME;

/** The config's enabled plugins, imported (not set up), with the entry each came from. */
export async function configPlugins(loaded: LoadedConfig): Promise<Array<{ plugin: LoadedPlugin; entry: PluginEntry }>> {
  const entries = loaded.config.plugins.map((entry, i) => ({ entry, configKey: `plugins[${i}]` })).filter(({ entry }) => entry.enabled !== false);
  const plugins = await loadPlugins(entries.map(({ entry, configKey }) => ({ use: entry.use, prefix: entry.prefix, mounts: entry.mounts, config: entry.config, configKey })), loaded.baseDir);
  return plugins.map((plugin) => ({ plugin, entry: entries.find((e) => e.configKey === plugin.configKey)!.entry }));
}

export async function runPluginCommand(name: string, argv: string[]): Promise<number> {
  if (!COMMAND_NAME.test(name)) throw new UsageError(`unknown command '${name}'.`);
  const { flags, rest } = takeConfigFlags(argv);
  const loaded = configFromFlags(flags, flags.plugins !== undefined ? { plugins: flags.plugins.split(',').map((s) => s.trim()).filter(Boolean) } : {});
  const plugins = await configPlugins(loaded);
  const { commands } = collectCommands(plugins.map((p) => p.plugin));
  const declared = commands.get(name);
  if (!declared) {
    const offered = [...commands.keys()];
    throw new UsageError(`unknown command '${name}': it is not one of the kernel's (${KERNEL_COMMAND_NAMES.filter((n) => n !== 'help').join(', ')}), `
      + `and ${loaded.file ?? 'the config'} loads no plugin that offers '${name}'${offered.length ? ` (its plugins offer: ${offered.join(', ')})` : ''}.`);
  }
  const usageLine = `usage: keel ${[name, declared.command.usage].filter(Boolean).join(' ')}`;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${usageLine}\n    ${declared.command.summary}\n`);
    return 0;
  }
  const module = await declared.command.load();
  if (typeof module?.run !== 'function') throw new Error(`plugin '${declared.plugin.id}' command '${name}': its module exports no run(ctx) function.`);

  const booted = new CommandBoot(loaded, plugins, declared);
  const ctx: CommandContext = {
    args: rest,
    dataDir: loaded.config.server.dataDir,
    server: { host: loaded.config.server.host, port: loaded.config.server.port },
    boot: () => booted.exports(),
    serve: (options) => booted.serve(options),
    stdout: process.stdout,
    stderr: process.stderr,
  };
  try {
    return await module.run(ctx);
  } catch (err) {
    // A plugin's usage mistake gets its command's usage line, as the kernel's own do.
    if (isUsageError(err)) throw new UsageError(`${err.message}\n${usageLine}`);
    throw err;
  } finally {
    await booted.stop();
  }
}

/** The command's plugin set up on demand, once, with the plugins whose tokens it needs. */
class CommandBoot {
  private kernel: Promise<import('../kernel.js').Kernel> | undefined;
  private serving = false;

  constructor(
    private readonly loaded: LoadedConfig,
    private readonly plugins: Array<{ plugin: LoadedPlugin; entry: PluginEntry }>,
    private readonly declared: DeclaredCommand,
  ) {}

  async exports(): Promise<unknown> {
    if (this.serving) throw new Error(`plugin '${this.declared.plugin.id}' command '${this.declared.name}': boot() while serving.`);
    this.kernel ??= this.boot();
    return (await this.kernel).exportsOf(this.declared.plugin.id);
  }

  /** Every plugin of the config, as the process `options.process`, until SIGTERM/SIGINT. */
  async serve(options: ServeOptions): Promise<number> {
    if (this.kernel) throw new Error(`plugin '${this.declared.plugin.id}' command '${this.declared.name}': serve() after boot() or serve().`);
    this.serving = true;
    if (typeof options?.process !== 'string' || !PROCESS_NAME.test(options.process)) throw new Error(`plugin '${this.declared.plugin.id}' command '${this.declared.name}': serve({ process }) needs a kebab-case process name (got '${String(options?.process)}').`);
    const [{ Kernel }, { stopOnSignal }] = await Promise.all([import('../kernel.js'), import('./stop-on-signal.js')]);
    const { config, file, baseDir } = this.loaded;
    const booting = Kernel.boot({ config: { ...config, plugins: this.plugins.map((p) => p.entry) }, configLabel: file ?? undefined, baseDir, mode: 'headless', process: options.process, includeCore: false });
    this.kernel = booting;
    const kernel = await booting;
    // Signals are handled before the line that tells a supervisor (or a test) the process is up.
    const stopped = stopOnSignal(kernel, `Keel ${options.process}`, config.server.shutdownTimeoutMs);
    process.stdout.write(`Keel ${options.process} started (data ${kernel.dataDir})\n`);
    return stopped;
  }

  async stop(): Promise<void> {
    const kernel = await this.kernel?.catch(() => undefined);
    await kernel?.stop();
  }

  private async boot() {
    const { Kernel } = await import('../kernel.js');
    const { config, file, baseDir } = this.loaded;
    // A one-shot command: only warnings are worth printing, and no hang watchdog.
    const server = { ...config.server, logLevel: 'warn' as const, watchdog: { ...config.server.watchdog, enabled: false } };
    const entries = this.withProviders().map((p) => p.entry);
    // Named after the command (never its arguments), so `/processes` tells it from the server.
    return Kernel.boot({ config: { ...config, server, plugins: entries }, configLabel: file ?? undefined, baseDir, mode: 'cli', process: this.declared.name, includeCore: false });
  }

  /** The command's plugin and, transitively, the plugins providing the tokens it depends on. */
  private withProviders(): Array<{ plugin: LoadedPlugin; entry: PluginEntry }> {
    const providerOf = new Map(this.plugins.flatMap((p) => providedValues(p.plugin.plugin.provides, undefined).map(({ token }) => [token.key, p] as const)));
    const target = this.plugins.find((p) => p.plugin.plugin === this.declared.plugin)!;
    const needed = new Set([target]);
    for (const p of needed) {
      for (const token of Object.values(p.plugin.plugin.deps ?? {})) {
        const provider = providerOf.get(token.key);
        if (provider) needed.add(provider);
      }
    }
    return this.plugins.filter((p) => needed.has(p));
  }
}
