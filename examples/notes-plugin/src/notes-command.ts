/**
 * `keel notes count`: how many notes the data directory holds, read from the plugin's own storage
 * with no server running (the command boots the plugin alone through `ctx.boot()`).
 */
import { UsageError, type CommandContext } from '@keel/plugin-sdk';
import type { NotesStore } from './notes-store.js';

export async function run(ctx: CommandContext<NotesStore>): Promise<number> {
  if (ctx.args[0] !== 'count' || ctx.args.length !== 1) throw new UsageError(ctx.args[0] === 'count' ? 'keel notes count takes no arguments.' : `unknown notes subcommand '${ctx.args[0] ?? ''}'.`);
  const store = await ctx.boot();
  ctx.stdout.write(`${store.count()}\n`);
  return 0;
}
