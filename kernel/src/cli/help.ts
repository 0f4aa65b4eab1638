/**
 * `keel --help`: the kernel's commands and those the config's plugins declare. Only the config's
 * plugin list is read, and the plugins are imported to read their declarations (not set up, and no
 * command module is loaded); one that cannot load, or a config that cannot be read, is named in the
 * text instead of failing the help.
 */
import { BootError } from '../boot-error.js';
import { readPluginEntries } from '../config/config-file.js';
import type { LoadedPlugin } from '../plugins/load-plugins.js';
import { loadPlugins } from '../plugins/load-plugins.js';
import { collectCommands } from '../plugins/plugin-commands.js';
import { collectServeFlags, serveFlagUsage } from '../plugins/serve-flags.js';
import { KERNEL_VERSION } from '../version.js';
import { takeConfigFlags } from './config-flags.js';
import { KERNEL_COMMANDS } from './kernel-commands.js';

const FOOTER = `Exit codes: 0 done (or stopped by SIGTERM/SIGINT); 1 cannot start, printed as one sentence per problem
(a bad config, a port in use, a plugin refusing to start), or failed; 2 a usage mistake.

Environment: KEEL_CONFIG, KEEL_PORT, KEEL_HOST, KEEL_DATA_DIR (flags win), KEEL_ADMIN_TOKEN
(replaces the bootstrap admin token in <data>/auth/admin.token).
`;

export async function helpText(args: string[]): Promise<string> {
  const kernel = Object.values(KERNEL_COMMANDS).map((c) => `  ${c.help.replace(/\n/g, '\n  ')}`).join('\n');
  return `keel ${KERNEL_VERSION}: a microkernel host for durable AI workflows

Usage:
${kernel}
  keel --help | --version

${await pluginSection(args)}
${FOOTER}`;
}

async function pluginSection(args: string[]): Promise<string> {
  const problems: string[] = [];
  const plugins: LoadedPlugin[] = [];
  let label = 'the config';
  try {
    // Only the plugin list is read: the rest of the config is validated when a command runs.
    const config = readPluginEntries(takeConfigFlags(args).flags.config ?? process.env.KEEL_CONFIG);
    label = config.file;
    // One plugin at a time, so one that cannot load still leaves the others' commands listed.
    for (const entry of config.plugins) {
      try {
        plugins.push(...(await loadPlugins([entry], config.baseDir)));
      } catch (err) {
        problems.push(...problemsOf(err));
      }
    }
  } catch (err) {
    problems.push(...problemsOf(err));
  }
  const { commands, problems: clashes } = collectCommands(plugins);
  const { flags, problems: flagClashes } = collectServeFlags(plugins);
  problems.push(...clashes, ...flagClashes);
  const lines = [`Commands of the plugins in ${label} (each also takes --config F, --data-dir D and --plugins a,b):`];
  for (const { name, command, plugin } of commands.values()) lines.push(`  keel ${[name, command.usage].filter(Boolean).join(' ')}`, `      ${command.summary} (plugin ${plugin.id})`);
  if (!commands.size) lines.push('  (none)');
  lines.push('', `Flags the plugins in ${label} add to keel serve:`);
  for (const declared of flags.values()) lines.push(`  ${serveFlagUsage(declared)}`, `      ${declared.flag.summary} (plugin ${declared.plugin.id}, config ${declared.flag.config})`);
  if (!flags.size) lines.push('  (none)');
  if (problems.length) lines.push('', 'Not listed because:', ...problems.map((p) => `  - ${p}`));
  return `${lines.join('\n')}\n`;
}

function problemsOf(err: unknown): string[] {
  return err instanceof BootError ? err.problems : [(err as Error).message];
}
