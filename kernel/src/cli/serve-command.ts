/**
 * `keel serve`: boot, listen, stop gracefully on SIGTERM/SIGINT. Stop always ends the process: the
 * kernel closes streams and sockets within `server.shutdownTimeoutMs`, and a stop that hangs anyway
 * is cut short. A second signal ends the process at once (the default action).
 */
import { adminTokenPath } from '../auth/bootstrap-admin.js';
import { secretEnv } from '../env/secret-env.js';
import { Kernel } from '../kernel.js';
import { listenRefusal } from './listen-refusal.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { UsageError } from './usage-error.js';

/** Time left for the process to end by itself after a completed stop before it is ended. */
const EXIT_GRACE_MS = 1_000;
/** Stop's budget beyond `server.shutdownTimeoutMs`, for plugin stops, pools and LMDB. */
const STOP_MARGIN_MS = 15_000;

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
  const tokenNote = secretEnv('KEEL_ADMIN_TOKEN') ? 'from KEEL_ADMIN_TOKEN' : `in ${adminTokenPath(kernel.dataDir)}`;
  process.stdout.write(`Keel listening on ${url} (data ${kernel.dataDir}; admin token ${tokenNote}; docs ${url}/docs)\n`);

  const { shutdownTimeoutMs } = loaded.config.server;
  return new Promise<number>((resolve) => {
    // Whatever a plugin leaves open (a timer, a socket of its own), the process ends once stop is done.
    const exit = (code: number) => {
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
      resolve(code);
    };
    const onSigterm = () => shutdown('SIGTERM');
    const onSigint = () => shutdown('SIGINT');
    const shutdown = (signal: string) => {
      // A second signal, of either kind, now ends the process at once (the default action).
      process.off('SIGTERM', onSigterm);
      process.off('SIGINT', onSigint);
      process.stdout.write(`Keel stopping (${signal})\n`);
      // Streams, sockets and requests get shutdownTimeoutMs; plugins, pools and LMDB a fixed margin on top.
      setTimeout(() => {
        process.stderr.write(`keel: stop did not finish within ${Math.round((shutdownTimeoutMs + STOP_MARGIN_MS) / 1000)} s; exiting anyway (runs resume from their ledger at the next start).\n`);
        process.exit(1);
      }, shutdownTimeoutMs + STOP_MARGIN_MS).unref();
      kernel.stop().then(() => exit(0), (err: unknown) => {
        process.stderr.write(`keel: stop failed: ${String(err)}\n`);
        exit(1);
      });
    };
    process.once('SIGTERM', onSigterm);
    process.once('SIGINT', onSigint);
  });
}
