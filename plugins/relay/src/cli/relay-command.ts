/**
 * `keel relay status|doctor [--skip-response]|models [--json]|accounts refresh` (reference §6).
 * `status` and `doctor` inspect the relay's settings and token on the data directory (doctor also
 * calls each upstream account directly); `models` and `accounts refresh` ask the running relay over
 * HTTP with the stored token, because the catalog cache and the account holds live in its memory.
 * `--json` on every subcommand; `--url <base>` names the relay's `/v1` root when it listens
 * elsewhere than the config says.
 */
import { parseArgs } from 'node:util';
import { UsageError, type CommandContext } from '@keel/plugin-sdk';
import { relayBaseUrl } from './base-url.js';
import { runDoctor } from './doctor.js';
import { printModels, printRefresh, printStatus, printDoctor } from './print.js';
import type { RelayExports } from './relay-cli-services.js';
import { relayRequest } from './relay-http.js';
import { statusReport } from './status-report.js';

const SUBCOMMANDS = ['status', 'doctor', 'models', 'accounts refresh'];

export async function run(ctx: CommandContext<RelayExports>): Promise<number> {
  const { values, positionals } = parseArgs({
    args: ctx.args,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, 'skip-response': { type: 'boolean' }, url: { type: 'string' } },
  });
  const words = positionals.join(' ');
  if (!words) throw new UsageError(`keel relay needs a subcommand: ${SUBCOMMANDS.join(', ')}.`);
  if (!SUBCOMMANDS.includes(words)) throw new UsageError(`unknown relay subcommand '${words}'; use one of ${SUBCOMMANDS.join(', ')}.`);
  if (values['skip-response'] && words !== 'doctor') throw new UsageError('--skip-response is for doctor.');
  if (values.url !== undefined && !/^https?:\/\/[^\s]+$/.test(values.url)) throw new UsageError(`--url takes the relay's /v1 root, e.g. http://127.0.0.1:8317/v1 (got '${values.url}').`);

  const { cli } = await ctx.boot();
  const baseUrl = relayBaseUrl(ctx, cli.prefix, values.url);
  const out = (text: string) => ctx.stdout.write(text);
  const json = (value: unknown) => out(`${JSON.stringify(value, null, 2)}\n`);

  if (words === 'status') {
    const report = statusReport(cli, baseUrl);
    if (values.json) json(report);
    else printStatus(report, out);
    return 0;
  }
  if (words === 'doctor') {
    const report = await runDoctor(cli, { skipResponse: values['skip-response'] === true });
    if (values.json) json(report);
    else printDoctor(report, out);
    return report.ok ? 0 : 1;
  }
  if (words === 'models') {
    const answer = await relayRequest(cli, baseUrl, 'GET', '/models', 60_000);
    if (answer.kind === 'unreachable') {
      ctx.stderr.write(`No running relay at ${baseUrl}. Start it with \`keel serve --config config/relay.json\` (or name it with --url), then retry.\n`);
      return 1;
    }
    if (answer.status >= 400) {
      ctx.stderr.write(`Model listing failed (${answer.status}): ${answer.text.slice(0, 200)}\n`);
      return 1;
    }
    if (values.json) json(answer.body);
    else printModels(answer.body, baseUrl, out);
    return 0;
  }
  const answer = await relayRequest(cli, baseUrl, 'POST', '/relay/accounts/refresh', 20_000);
  if (answer.kind === 'unreachable') {
    ctx.stderr.write(`No running relay at ${baseUrl}: account holds live in the relay process's memory, so starting or restarting the relay already cleared them.\n`);
    return 1;
  }
  if (answer.status >= 400) {
    ctx.stderr.write(`Refresh failed (${answer.status}): ${answer.text.slice(0, 200)}\n`);
    return 1;
  }
  if (values.json) json(answer.body);
  else printRefresh(answer.body, out);
  return 0;
}
