/** `keel runner`: executes runs for a server started with `--no-runner` on the same data dir; no listener. */
import { Kernel } from '../kernel.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { UsageError } from './usage-error.js';

export async function runnerCommand(args: string[]): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, strict: true, allowPositionals: true, options: { ...configFlags, plugins: { type: 'string' } } }));
  if (positionals.length) throw new UsageError(`runner takes no arguments (got '${positionals.join(' ')}').`);
  const loaded = configFromFlags(values, {
    runner: true,
    ...(values.plugins !== undefined ? { plugins: values.plugins.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
  });
  const kernel = await Kernel.boot({ config: loaded.config, configLabel: loaded.file ?? undefined, baseDir: loaded.baseDir, mode: 'runner' });
  process.stdout.write(`Keel runner started (data ${kernel.dataDir})\n`);
  return new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      process.stdout.write(`Keel runner stopping (${signal})\n`);
      kernel.stop().then(() => resolve(0), () => resolve(1));
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}
