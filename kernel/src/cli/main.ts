/**
 * The `keel` command line: the kernel's own commands (`kernel-commands.ts`) and those the config's
 * plugins declare (`plugin-command.ts`), each module imported only when its command runs.
 */
import { isStartRefused } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';
import { takeSecretEnv } from '../env/secret-env.js';
import { KERNEL_VERSION } from '../version.js';
import { helpText } from './help.js';
import { kernelCommand } from './kernel-commands.js';
import { isUsageError } from './usage-error.js';

export async function main(argv: string[]): Promise<number> {
  // Keel's secrets leave the process environment before anything else runs (see env/secret-env.ts).
  takeSecretEnv();
  const [verb, ...rest] = argv;
  try {
    switch (verb) {
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(await helpText(rest));
        return 0;
      case '--version':
      case '-v':
        process.stdout.write(`${KERNEL_VERSION}\n`);
        return 0;
    }
    const own = kernelCommand(verb);
    if (own) return await (await own.load())(rest);
    // Imported here: it validates the config, which `--help` does not need to.
    const { runPluginCommand } = await import('./plugin-command.js');
    return await runPluginCommand(verb, rest);
  } catch (err) {
    if (isUsageError(err)) {
      process.stderr.write(`keel: ${err.message}\nRun 'keel --help' for usage.\n`);
      return 2;
    }
    // A refusal the user can fix is its sentence(s), never a stack.
    const problems = err instanceof BootError ? err.problems : isStartRefused(err) ? [err.message] : null;
    if (problems) {
      process.stderr.write(problems.length === 1 ? `keel: cannot start: ${problems[0]}\n` : `keel: cannot start:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
      return 1;
    }
    process.stderr.write(`keel: ${(err as Error).stack ?? String(err)}\n`);
    return 1;
  }
}
