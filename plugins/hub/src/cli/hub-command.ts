/**
 * `keel hub register <id> [--operator] [--about TEXT] [--mission TEXT]`: issues a hub seat straight
 * from the data directory, with no server needed (a running one on the same data dir sees the seat
 * at once: LMDB is multi-process). The seat key is printed once, on stdout alone.
 */
import { parseArgs } from 'node:util';
import { UsageError, type CommandContext } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';

export async function run(ctx: CommandContext<Hub>): Promise<number> {
  const { values, positionals } = parse(ctx.args);
  if (positionals[0] !== 'register') throw new UsageError(positionals[0] === undefined ? 'keel hub needs a subcommand.' : `unknown hub subcommand '${positionals[0]}'.`);
  if (positionals.length !== 2) throw new UsageError('keel hub register takes one seat id.');
  const hub = await ctx.boot();
  try {
    const { agent, api_key } = await hub.agents.register({ id: positionals[1]!, about: values.about, mission: values.mission, operator: values.operator === true });
    ctx.stderr.write(`registered ${agent.operator ? 'operator' : 'seat'} '${agent.id}'; its key is shown once:\n`);
    ctx.stdout.write(`${api_key}\n`);
    return 0;
  } catch (err) {
    // The hub's refusals (taken id, bad id, banned id) are sentences meant for people.
    if (typeof (err as { status?: unknown }).status === 'number') {
      ctx.stderr.write(`keel: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, strict: true, allowPositionals: true, options: {
      operator: { type: 'boolean' },
      about: { type: 'string' },
      mission: { type: 'string' },
    } });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
