/**
 * `@keel/plugin-automations`: automations (seed 000 §2.8, §3, §4.4, §4.8, §7; reference
 * gateway-surfaces §3): trigger sources, definitions with revisions, a durable scheduler whose
 * occurrences are tagged root runs started through `runs.launcher`, attention items and discussions.
 */
import { core, definePlugin } from '@keel/plugin-sdk';
import { runHooksToken, runLauncherToken } from '@keel/plugin-gateway-runs';
import { workspacesToken } from '@keel/plugin-workspaces';
import { Automations } from './automations.js';
import type { AutomationsCli } from './cli/automations-command.js';
import { automationsConfigSchema } from './config.js';
import { composeDiscussions } from './discuss/compose-discussions.js';
import { AutomationEngine } from './engine/automation-engine.js';
import { engineRoutes } from './engine/engine-routes.js';
import { OccurrenceLog } from './engine/occurrence-log.js';
import { OccurrenceReaders } from './engine/occurrence-readers.js';
import { automationErrorFormat } from './errors.js';
import { automationCommandTarget } from './routes/command-target.js';
import { automationRoutes } from './routes/automation-routes.js';
import { AutomationStore } from './store/automation-store.js';
import { summaryReaders } from './summary/readers.js';
import { hostZone, TriggerSources, triggerRoutes } from './triggers/index.js';

export type * from './model.js';
export type { AutomationsConfig, AutomationLimits } from './config.js';
export { AutomationError, automationError, automationErrorFormat } from './errors.js';
export { AUTOMATION_NAMESPACE, automationIdFor, uuid5 } from './ids.js';
export * as triggers from './triggers/index.js';
export * as engine from './engine/index.js';

export const automationsPlugin = definePlugin({
  id: 'automations',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Automations: trigger sources, definitions with revisions, a durable scheduler, occurrences, attention items and discussions',
  configSchema: automationsConfigSchema,
  defaultPrefix: '/api/gateway',
  // Every answer of these routes, refusals of the kernel included (401, 403, validation, bad JSON), is `{detail: {reason_code, message, field?}}`.
  errorFormat: automationErrorFormat,
  // No route lives on these: they give unmatched paths below them (and refusals before routing,
  // such as a disallowed origin) the same envelope, and ask a token before telling 404 from 405.
  mounts: {
    'automations-paths': { prefix: '/api/gateway/automations', errorFormat: automationErrorFormat, guardUnmatched: true },
    'trigger-sources-paths': { prefix: '/api/gateway/trigger-sources', errorFormat: automationErrorFormat, guardUnmatched: true },
  },
  commands: {
    automations: {
      summary: 'List, show, run now, pause or resume the automations of an account on the data directory (prints JSON; a server picks up run-now by its poll).',
      usage: 'list|show <id>|run-now <id>|pause <id>|resume <id> [--account <name>] [--status <s,...>] [--archived-only] [--cursor <c>] [--limit <n>] [--command-id <id>]',
      load: () => import('./cli/automations-command.js'),
    },
  },
  deps: { log: core.logger, storage: core.storage, auth: core.auth, clock: core.clock, runHooks: runHooksToken, launcher: runLauncherToken, workspaces: workspacesToken },
  setup({ config, deps }) {
    const store = new AutomationStore(deps.storage);
    const occurrenceLog = new OccurrenceLog(deps.storage);
    const triggers = new TriggerSources();
    // Keel keeps no per-account time zone yet: every owner's zone is the host's (reference §3.5).
    const ownerZone = () => hostZone();
    const engine = new AutomationEngine({
      store,
      log: occurrenceLog,
      sources: triggers,
      launcher: deps.launcher,
      hooks: deps.runHooks,
      auth: deps.auth,
      clock: deps.clock,
      logger: deps.log,
      settings: config.scheduler,
    });
    const automations = new Automations({
      store,
      triggers,
      definitions: { launcher: deps.launcher, triggers, ownerZone, maxInputDataBytes: config.limits.maxInputDataBytes },
      readers: summaryReaders({ log: occurrenceLog, launcher: deps.launcher, clock: deps.clock, ownerZone }),
      clock: deps.clock,
      limits: config.limits,
      log: deps.log,
      nudge: () => engine.nudge(),
    });
    deps.runHooks.addCommandTarget(automationCommandTarget(automations));
    const discussions = composeDiscussions({ storage: deps.storage, automations: store, occurrences: occurrenceLog, launcher: deps.launcher, runHooks: deps.runHooks, workspaces: deps.workspaces, clock: deps.clock, log: deps.log, settings: config.discussion, maxIdLength: config.limits.maxIdLength });
    // What `keel automations` uses: the routes' own service, for a named account.
    const cli: AutomationsCli = {
      accountOf: (account) => deps.auth.accountOf(account),
      list: (principal, query) => automations.list(principal, query),
      get: (principal, id) => automations.read(principal, id),
      command: (principal, id, command) => automations.command(principal, id, command),
    };
    const occurrenceReaders = new OccurrenceReaders(store, occurrenceLog, deps.launcher, ownerZone, () => deps.clock.nowMs());
    return {
      exports: { cli },
      routes: [...automationRoutes(automations, config.limits), ...engineRoutes(store, occurrenceReaders), ...triggerRoutes({ sources: triggers, clock: deps.clock, ownerZone }), ...discussions.routes],
      start: () => engine.start(),
      stop: () => engine.stop(),
    };
  },
});

export default automationsPlugin;
