/** The `keel` command line: dispatches to one command module per verb. */
import { isStartRefused } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';
import { takeSecretEnv } from '../env/secret-env.js';
import { KERNEL_VERSION } from '../version.js';
import { hubCommand } from './hub-command.js';
import { pluginsCommand } from './plugins-command.js';
import { runnerCommand } from './runner-command.js';
import { serveCommand } from './serve-command.js';
import { tokenCommand } from './token-command.js';
import { UsageError } from './usage-error.js';

export const HELP = `keel ${KERNEL_VERSION}: a microkernel host for durable AI workflows

Usage:
  keel serve [--config F] [--plugins a,b] [--port N] [--host H] [--data-dir D] [--no-runner]
      Boot the plugins the config names and listen (defaults: 127.0.0.1:8080, ./data,
      config/default.json). Stops gracefully on SIGTERM/SIGINT.
  keel runner [--config F] [--data-dir D] [--plugins a,b]
      Execute runs for a server started with --no-runner on the same data dir (no listener).
  keel plugins [--config F]
      List the plugins installed here and the ones the config loads.
  keel token create --account A [--admin] [--tenant T] [--label L] [--data-dir D] [--config F]
      Print a new bearer token for account A (created if missing; --admin gives it the admin role).
  keel hub register <id> [--operator] [--about TEXT] [--mission TEXT] [--data-dir D] [--config F]
      Register a seat on the hub plugin of the config and print its key once (no server needed).
  keel --help | --version

Exit codes: 0 done (or stopped by SIGTERM/SIGINT); 1 cannot start, printed as one sentence per problem
(a bad config, a port in use, another runner holding the data dir's lock), or failed; 2 a usage mistake.

Environment: KEEL_CONFIG, KEEL_PORT, KEEL_HOST, KEEL_DATA_DIR (flags win), KEEL_ADMIN_TOKEN
(replaces the bootstrap admin token in <data>/auth/admin.token).
`;

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
        process.stdout.write(HELP);
        return 0;
      case '--version':
      case '-v':
        process.stdout.write(`${KERNEL_VERSION}\n`);
        return 0;
      case 'serve':
        return await serveCommand(rest);
      case 'plugins':
        return await pluginsCommand(rest);
      case 'runner':
        return await runnerCommand(rest);
      case 'token':
        return await tokenCommand(rest);
      case 'hub':
        return await hubCommand(rest);
      default:
        throw new UsageError(`unknown command '${verb}'.`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
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
