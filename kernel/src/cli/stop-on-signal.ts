/**
 * How a serving `keel` process ends (`keel serve`, a plugin command's `serve`): on SIGTERM/SIGINT
 * the kernel stops and the promise resolves to the exit code. Stop always ends the process: the
 * kernel closes streams and sockets within `server.shutdownTimeoutMs`, and a stop that hangs anyway
 * is cut short. A second signal ends the process at once (the default action).
 */
import type { Kernel } from '../kernel.js';

/** Time left for the process to end by itself after a completed stop before it is ended. */
const EXIT_GRACE_MS = 1_000;
/** Stop's budget beyond `server.shutdownTimeoutMs`, for plugin stops, pools and LMDB. */
const STOP_MARGIN_MS = 15_000;

/** `name` starts the line printed at the signal: `Keel stopping (SIGTERM)`, `Keel relay stopping (SIGTERM)`. */
export function stopOnSignal(kernel: Kernel, name: string, shutdownTimeoutMs: number): Promise<number> {
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
      process.stdout.write(`${name} stopping (${signal})\n`);
      // Streams, sockets and requests get shutdownTimeoutMs; plugins, pools and LMDB a fixed margin on top.
      setTimeout(() => {
        process.stderr.write(`keel: stop did not finish within ${Math.round((shutdownTimeoutMs + STOP_MARGIN_MS) / 1000)} s; exiting anyway (work in flight resumes from the data directory at the next start).\n`);
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
