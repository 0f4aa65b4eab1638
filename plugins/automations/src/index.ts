/**
 * `@keel/plugin-automations`: automations (seed 000 §2.8, §3, §4.4, §4.8, §7; reference
 * gateway-surfaces §3): trigger sources, definitions with revisions, a durable scheduler whose
 * occurrences are tagged root runs started through `runs.launcher`, attention items and discussions.
 */
import { core, defineSchemaFor, definePlugin } from '@keel/plugin-sdk';
import { runHooksToken, runLauncherToken } from '@keel/plugin-gateway-runs';
import { workspacesToken } from '@keel/plugin-workspaces';
import { composeDiscussions } from './discuss/compose-discussions.js';
import { DEFAULT_DISCUSSION_SETTINGS, type DiscussionSettings } from './discuss/discussions.js';
import { OccurrenceLog } from './engine/occurrence-log.js';
import { automationErrorFormat } from './errors.js';
import { AutomationStore } from './store/automation-store.js';

export type * from './model.js';

export interface AutomationsConfig {
  discussion: DiscussionSettings;
}

const configSchema = defineSchemaFor<AutomationsConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    discussion: {
      type: 'object',
      additionalProperties: false,
      default: DEFAULT_DISCUSSION_SETTINGS,
      properties: {
        maxTokens: { type: 'integer', minimum: 1, maximum: 10_000_000, default: DEFAULT_DISCUSSION_SETTINGS.maxTokens, description: "A discussion's history window in estimated tokens (seed and later turns); a growing automation's context.growing.max_tokens wins" },
      },
    },
  },
});

export const automationsPlugin = definePlugin({
  id: 'automations',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Automations: trigger sources, definitions with revisions, a durable scheduler, occurrences, attention items and discussions',
  defaultPrefix: '/api/gateway',
  errorFormat: automationErrorFormat,
  configSchema,
  commands: {
    automations: {
      summary: 'List, show, run now, pause or resume the automations of an account on the data directory (prints JSON; a server picks up run-now by its poll).',
      usage: 'list|show <id>|run-now <id>|pause <id>|resume <id> [--account <name>] [--status <s,...>] [--archived-only] [--cursor <c>] [--limit <n>] [--command-id <id>]',
      load: () => import('./cli/automations-command.js'),
    },
  },
  deps: { log: core.logger, storage: core.storage, auth: core.auth, clock: core.clock, runHooks: runHooksToken, launcher: runLauncherToken, workspaces: workspacesToken },
  setup({ config, deps }) {
    const automations = new AutomationStore(deps.storage);
    const occurrences = new OccurrenceLog(deps.storage);
    const discuss = composeDiscussions({ ...deps, automations, occurrences, settings: config.discussion });
    return { routes: [...discuss.routes] };
  },
});

export default automationsPlugin;
