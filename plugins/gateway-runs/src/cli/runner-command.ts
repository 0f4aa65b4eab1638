/**
 * `keel runner`: executes the runs of a `keel serve --no-runner` on the same data dir. It serves the
 * config's plugins without a listener until SIGTERM/SIGINT, as the process `runner`: gateway-runs
 * there takes the runner lock and talks to the server through `<data>/live` (see runner-wiring.ts).
 */
import { UsageError, type CommandContext } from '@keel/plugin-sdk';
import { RUNNER_PROCESS } from '../runner/runner-wiring.js';

export async function run(ctx: CommandContext): Promise<number> {
  if (ctx.args.length) throw new UsageError(`runner takes no arguments (got '${ctx.args.join(' ')}').`);
  return ctx.serve({ process: RUNNER_PROCESS });
}
