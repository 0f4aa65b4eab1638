/**
 * `keel serve`: boot, listen, stop gracefully on SIGTERM/SIGINT (see `stop-on-signal.ts`). Besides
 * the kernel's flags it takes those the config's plugins declare (`serveFlags`), each setting a key
 * of its plugin's config for this run.
 */
import { adminTokenPath } from '../auth/bootstrap-admin.js';
import { BootError } from '../boot-error.js';
import { secretEnv } from '../env/secret-env.js';
import { Kernel } from '../kernel.js';
import { loadPluginsReporting } from '../plugins/load-plugins.js';
import { collectServeFlags, type DeclaredServeFlag } from '../plugins/serve-flags.js';
import { listenRefusal } from './listen-refusal.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { stopOnSignal } from './stop-on-signal.js';
import { UsageError } from './usage-error.js';

const kernelFlags = {
  ...configFlags,
  plugins: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
} as const;

export async function serveCommand(args: string[]): Promise<number> {
  // The kernel's flags first (they name the config), then every flag again with the plugins' own.
  const { values } = usage(() => parseArgs({ args, strict: false, allowPositionals: true, allowNegative: true, options: kernelFlags }));
  // Not strict, so a value-less `--port` reads as true instead of failing: refuse it here.
  const valueless = Object.keys(kernelFlags).find((name) => values[name] !== undefined && typeof values[name] !== 'string');
  if (valueless) throw new UsageError(`--${valueless} needs a value.`);
  const port = values.port !== undefined ? Number(values.port) : undefined;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535 (got '${String(values.port)}').`);
  const loaded = configFromFlags(values as { config?: string; 'data-dir'?: string }, {
    ...(port !== undefined ? { port } : {}),
    ...(typeof values.host === 'string' ? { host: values.host } : {}),
    ...(typeof values.plugins === 'string' ? { plugins: values.plugins.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
  });
  // A plugin that cannot load leaves its flags unknown: they are not refused then, the boot below
  // reports the plugin with every other config error instead.
  const entries = loaded.config.plugins.map((entry, i) => ({ entry, configKey: `plugins[${i}]` })).filter(({ entry }) => entry.enabled !== false);
  const plugins = await loadPluginsReporting(entries.map(({ entry, configKey }) => ({ use: entry.use, prefix: entry.prefix, mounts: entry.mounts, config: entry.config, configKey })), loaded.baseDir);
  const { flags, problems } = collectServeFlags(plugins.loaded);
  if (problems.length) throw new BootError(problems);
  const pluginValues = parsePluginFlags(args, flags, plugins.problems.length === 0);
  for (const [name, value] of Object.entries(pluginValues)) {
    const declared = flags.get(name)!;
    const { entry } = entries.find((e) => e.configKey === declared.configKey)!;
    entry.config = { ...entry.config, [declared.flag.config]: value };
  }

  const kernel = await Kernel.boot({ config: loaded.config, configLabel: loaded.file ?? undefined, baseDir: loaded.baseDir, mode: 'server' });
  let address;
  try {
    address = await kernel.listen();
  } catch (err) {
    await kernel.stop();
    throw listenRefusal(err, loaded.config.server.host, loaded.config.server.port) ?? err;
  }
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  const tokenNote = secretEnv('KEEL_ADMIN_TOKEN') ? 'from KEEL_ADMIN_TOKEN' : `in ${adminTokenPath(kernel.dataDir)}`;
  // Signals are handled before the line that tells a supervisor (or a test) the server is up.
  const stopped = stopOnSignal(kernel, 'Keel', loaded.config.server.shutdownTimeoutMs);
  process.stdout.write(`Keel listening on ${url} (data ${kernel.dataDir}; admin token ${tokenNote}; docs ${url}/docs)\n`);
  return stopped;
}

/** The values of the plugins' flags; any other unknown flag (when `strict`), or a positional, is a usage mistake. */
function parsePluginFlags(args: string[], flags: ReadonlyMap<string, DeclaredServeFlag>, strict: boolean): Record<string, string | boolean> {
  const options = { ...kernelFlags, ...Object.fromEntries([...flags].map(([name, d]) => [name, { type: d.flag.type }])) };
  const { values, positionals } = usage(() => {
    try {
      return parseArgs({ args, strict, allowPositionals: true, allowNegative: true, options });
    } catch (err) {
      const offered = [...flags.keys()].map((n) => `--${n}`);
      throw new Error(`${(err as Error).message}${offered.length ? `\n(the config's plugins add: ${offered.join(', ')})` : ''}`, { cause: err });
    }
  });
  if (positionals.length) throw new UsageError(`serve takes no arguments (got '${positionals.join(' ')}').`);
  return Object.fromEntries(Object.entries(values).filter(([name, value]) => flags.has(name) && typeof value === flags.get(name)!.flag.type)) as Record<string, string | boolean>;
}
