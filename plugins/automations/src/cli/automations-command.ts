/**
 * `keel automations list|show <id>|run-now <id>|pause <id>|resume <id> [--account <name>]`: the
 * automations of one account (default: the admin account), read and commanded straight from the data
 * directory with the same service the HTTP routes use, printed as JSON. Nothing runs here: a command
 * is recorded in LMDB (run-now queues a manual fire) and a server's scheduler on the same data dir
 * picks it up by its poll (setting `scheduler.pollMs`).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { UsageError, type CommandContext, type Principal } from '@keel/plugin-sdk';
import type { AutomationCommandType } from '../model.js';

/** The account a command acts as when `--account` names none: the kernel's bootstrap admin. */
export const DEFAULT_CLI_ACCOUNT = 'admin';

/** What the command needs of the plugin's exports (the HTTP routes' service). */
export interface AutomationsCli {
  /** The named account as a principal, or null when it does not exist or is disabled. */
  accountOf(account: string): Principal | null;
  list(principal: Principal, query: { status?: string; archived_only?: boolean; cursor?: string; limit?: number }): Promise<unknown> | unknown;
  get(principal: Principal, automationId: string): Promise<unknown> | unknown;
  command(principal: Principal, automationId: string, command: { command_id: string; type: AutomationCommandType; payload?: Record<string, unknown> }): Promise<unknown> | unknown;
}

const COMMANDS: Record<string, AutomationCommandType> = { 'run-now': 'automation.run_now', pause: 'automation.pause', resume: 'automation.resume' };
const SUBCOMMANDS = ['list', 'show', ...Object.keys(COMMANDS)];

export async function run(ctx: CommandContext<{ cli: AutomationsCli }>): Promise<number> {
  const { values, positionals } = parse(ctx.args);
  const [sub, id, ...extra] = positionals;
  if (sub === undefined) throw new UsageError(`keel automations needs a subcommand: ${SUBCOMMANDS.join(', ')}.`);
  if (!SUBCOMMANDS.includes(sub)) throw new UsageError(`unknown automations subcommand '${sub}'; use one of ${SUBCOMMANDS.join(', ')}.`);
  if (sub === 'list') {
    if (id !== undefined) throw new UsageError(`keel automations list takes no automation id (got '${id}').`);
    if (values['command-id'] !== undefined) throw new UsageError('--command-id is for run-now, pause and resume.');
  } else {
    if (id === undefined || !id.trim()) throw new UsageError(`keel automations ${sub} takes one automation id.`);
    if (extra.length) throw new UsageError(`keel automations ${sub} takes one automation id (got '${positionals.slice(1).join(' ')}').`);
    if (values.status !== undefined || values['archived-only'] !== undefined || values.cursor !== undefined || values.limit !== undefined) {
      throw new UsageError('--status, --archived-only, --cursor and --limit are for list.');
    }
    if (sub === 'show' && values['command-id'] !== undefined) throw new UsageError('--command-id is for run-now, pause and resume.');
  }
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 200)) throw new UsageError(`--limit must be a whole number from 1 to 200 (got '${values.limit}').`);

  const { cli } = await ctx.boot();
  const account = values.account ?? DEFAULT_CLI_ACCOUNT;
  const principal = cli.accountOf(account);
  if (!principal) {
    ctx.stderr.write(`keel: account '${account}' does not exist or is disabled; name another with --account <name>.\n`);
    return 1;
  }
  try {
    let answer: unknown;
    if (sub === 'list') answer = await cli.list(principal, { status: values.status, archived_only: values['archived-only'], cursor: values.cursor, limit });
    else if (sub === 'show') answer = await cli.get(principal, id!);
    else answer = await cli.command(principal, id!, { command_id: values['command-id'] ?? randomUUID(), type: COMMANDS[sub]! });
    ctx.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return 0;
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    ctx.stderr.write(`keel: ${refusal.message}\n`);
    ctx.stdout.write(`${JSON.stringify({ detail: refusal.detail }, null, 2)}\n`);
    return 1;
  }
}

/** The service's refusals are HTTP errors whose detail is `{reason_code, message, ...}`: printed, exit 1. */
function refusalOf(err: unknown): { message: string; detail: unknown } | null {
  const e = err as { status?: unknown; detail?: unknown; body?: unknown; message?: unknown };
  if (typeof e?.status !== 'number') return null;
  const detail = e.detail ?? (e.body as { detail?: unknown } | undefined)?.detail ?? e.message;
  const message = typeof (detail as { message?: unknown })?.message === 'string' ? (detail as { message: string }).message : typeof detail === 'string' ? detail : String(e.message);
  return { message, detail };
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, strict: true, allowPositionals: true, options: {
      account: { type: 'string' },
      status: { type: 'string' },
      'archived-only': { type: 'boolean' },
      cursor: { type: 'string' },
      limit: { type: 'string' },
      'command-id': { type: 'string' },
    } });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
