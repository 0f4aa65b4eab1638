/** `keel serve`: boot, listen, stop gracefully on SIGTERM/SIGINT. */
import { adminTokenPath } from '../auth/bootstrap-admin.js';
import { Kernel } from '../kernel.js';
import { listenRefusal } from './listen-refusal.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { UsageError } from './usage-error.js';

export async function serveCommand(args: string[]): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, strict: true, allowPositionals: true, allowNegative: true, options: {
    ...configFlags,
    plugins: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    runner: { type: 'boolean' },
  } }));
  if (positionals.length) throw new UsageError(`serve takes no arguments (got '${positionals.join(' ')}').`);
  const port = values.port !== undefined ? Number(values.port) : undefined;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError(`--port must be an integer from 0 to 65535 (got '${values.port}').`);
  const loaded = configFromFlags(values, {
    ...(port !== undefined ? { port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.runner !== undefined ? { runner: values.runner } : {}),
    ...(values.plugins !== undefined ? { plugins: values.plugins.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
  });
  const kernel = await Kernel.boot({ config: loaded.config, configLabel: loaded.file ?? undefined, baseDir: loaded.baseDir, mode: 'server' });
  let address;
  try {
    address = await kernel.listen();
  } catch (err) {
    await kernel.stop();
    throw listenRefusal(err, loaded.config.server.host, loaded.config.server.port) ?? err;
  }
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  const tokenNote = process.env.KEEL_ADMIN_TOKEN ? 'from KEEL_ADMIN_TOKEN' : `in ${adminTokenPath(kernel.dataDir)}`;
  process.stdout.write(`Keel listening on ${url} (data ${kernel.dataDir}; admin token ${tokenNote}; docs ${url}/docs)\n`);

  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      process.stdout.write(`Keel stopping (${signal})\n`);
      kernel.stop().then(() => resolve(0), (err: unknown) => {
        process.stderr.write(`keel: stop failed: ${String(err)}\n`);
        resolve(1);
      });
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
