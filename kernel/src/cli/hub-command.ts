/**
 * `keel hub register <id>`: issue a hub seat straight from the data directory, with no server
 * needed (a running one on the same data dir sees the seat at once: LMDB is multi-process). The
 * kernel knows no plugin by name: it boots whichever plugin of the config has the id `hub`, alone
 * and in `cli` mode, and calls the registry that plugin exports. The seat key is printed once.
 */
import { Kernel } from '../kernel.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { PluginEntry } from '../config/kernel-config.js';
import { loadPlugins } from '../plugins/load-plugins.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { UsageError } from './usage-error.js';

const HUB_PLUGIN_ID = 'hub';
const USAGE = 'usage: keel hub register <id> [--operator] [--about TEXT] [--mission TEXT] [--config F] [--data-dir D]';

/** The part of the hub plugin's exports this command uses. */
interface HubSeatIssuer {
  agents: { register(input: { id: string; about?: string; mission?: string; operator?: boolean }): Promise<{ agent: { id: string; operator: boolean }; api_key: string }> };
}

function isSeatIssuer(value: unknown): value is HubSeatIssuer {
  const agents = (value as { agents?: { register?: unknown } } | undefined)?.agents;
  return typeof agents?.register === 'function';
}

export async function hubCommand(args: string[]): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, strict: true, allowPositionals: true, options: {
    ...configFlags,
    operator: { type: 'boolean' },
    about: { type: 'string' },
    mission: { type: 'string' },
  } }));
  if (positionals[0] !== 'register' || positionals.length !== 2) throw new UsageError(USAGE);
  const id = positionals[1]!;
  const loaded = configFromFlags(values);
  const entry = await hubEntry(loaded);
  // A one-shot command: only warnings are worth printing, and no hang watchdog is needed.
  const server = { ...loaded.config.server, logLevel: 'warn' as const, watchdog: { ...loaded.config.server.watchdog, enabled: false } };
  const kernel = await Kernel.boot({
    config: { ...loaded.config, server, plugins: [entry] }, configLabel: loaded.file ?? undefined, baseDir: loaded.baseDir, mode: 'cli', includeCore: false,
  });
  try {
    const hub = kernel.exportsOf(HUB_PLUGIN_ID);
    if (!isSeatIssuer(hub)) throw new UsageError(`the plugin '${entry.use}' has the id '${HUB_PLUGIN_ID}' but exports no seat registry.`);
    try {
      const { agent, api_key } = await hub.agents.register({ id, about: values.about, mission: values.mission, operator: values.operator === true });
      process.stderr.write(`registered ${agent.operator ? 'operator' : 'seat'} '${agent.id}'; its key is shown once:\n`);
      process.stdout.write(`${api_key}\n`);
      return 0;
    } catch (err) {
      // The hub's refusals (taken id, bad id, banned id) are sentences meant for people.
      if (typeof (err as { status?: unknown }).status === 'number') {
        process.stderr.write(`keel: ${(err as Error).message}\n`);
        return 1;
      }
      throw err;
    }
  } finally {
    await kernel.stop();
  }
}

/** The config's entry whose plugin has the id `hub` (imported to read its id, not set up). */
async function hubEntry(loaded: LoadedConfig): Promise<PluginEntry> {
  const entries = loaded.config.plugins.filter((e) => e.enabled !== false);
  const plugins = await loadPlugins(entries.map((e, i) => ({ use: e.use, prefix: e.prefix, mounts: e.mounts, config: e.config, configKey: `plugins[${i}]` })), loaded.baseDir);
  const hub = plugins.find((p) => p.plugin.id === HUB_PLUGIN_ID);
  const entry = hub && entries.find((e) => e.use === hub.source);
  if (!entry) throw new UsageError(`${loaded.file ?? 'the config'} loads no hub plugin — add {"use": "@keel/plugin-hub"} to its plugins.`);
  return entry;
}
