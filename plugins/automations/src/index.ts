/**
 * `@keel/plugin-automations`: automations (seed 000 §2.8, §3, §4.4, §4.8, §7; reference
 * gateway-surfaces §3): trigger sources, definitions with revisions, a durable scheduler whose
 * occurrences are tagged root runs started through `runs.launcher`, attention items and discussions.
 */
import { core, definePlugin } from '@keel/plugin-sdk';
import { runHooksToken, runLauncherToken } from '@keel/plugin-gateway-runs';
import { hostZone, TriggerSources, triggerRoutes } from './triggers/index.js';

export type * from './model.js';
export * as triggers from './triggers/index.js';

export const automationsPlugin = definePlugin({
  id: 'automations',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Automations: trigger sources, definitions with revisions, a durable scheduler, occurrences, attention items and discussions',
  defaultPrefix: '/api/gateway',
  deps: { log: core.logger, storage: core.storage, auth: core.auth, clock: core.clock, runHooks: runHooksToken, launcher: runLauncherToken },
  setup({ deps }) {
    return { routes: [...triggerRoutes({ sources: new TriggerSources(), clock: deps.clock, ownerZone: hostZone })] };
  },
});

export default automationsPlugin;
