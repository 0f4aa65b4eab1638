/** Builds the discussions and hooks them into every run start (`runs.hooks`): the plugin's index adds the route. */
import type { Clock, Logger, PluginStorage } from '@keel/plugin-sdk';
import type { RunHooks, RunLauncher } from '@keel/plugin-gateway-runs';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { discussRoutes } from './discuss-route.js';
import { DiscussionStore } from './discussion-store.js';
import { Discussions, type DiscussionSettings, type DiscussionsDeps, type OccurrenceReader } from './discussions.js';

export interface ComposeDiscussions {
  storage: PluginStorage;
  automations: DiscussionsDeps['automations'];
  occurrences: OccurrenceReader;
  launcher: RunLauncher;
  runHooks: RunHooks;
  workspaces: WorkspaceService;
  clock: Clock;
  log: Logger;
  settings: DiscussionSettings;
  /** `limits.maxIdLength`: the longest request_id. */
  maxIdLength: number;
}

export function composeDiscussions(c: ComposeDiscussions) {
  const discussions = new Discussions({ ...c, discussions: new DiscussionStore(c.storage) });
  c.runHooks.addStartCheck(discussions.startCheck);
  c.runHooks.addStartPreparer(discussions.startPreparer);
  return { discussions, routes: discussRoutes(discussions, c.maxIdLength) };
}
