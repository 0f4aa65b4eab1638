/**
 * `@keel/plugin-hub`: the collaboration hub (seed 001) — seats and operators, channels, messages
 * with asks and answers, a hash-chained transcript per channel, a live socket and the team page.
 * Mounted at `/hub`; wire-compatible with clients written for the `agora/0.4` protocol.
 */
import { core, definePlugin, optional, token } from '@keel/plugin-sdk';
import { composeHub } from './compose-hub.js';
import { hubConfigSchema } from './config.js';
import type { Hub } from './hub.js';
import { hubErrorFormat } from './hub-error-format.js';
import { hubRoutes } from './routes/hub-routes.js';
import { inferenceServiceToken } from './search/semantic/inference-token.js';
import { HubDb } from './store/hub-db.js';

export { Hub, HUB_PROTOCOL, HUB_VERSION } from './hub.js';
export type { HubConfig } from './config.js';
/** The notice texts the hub posts (clients and other plugins match on them). */
export * as hubNotices from './notices.js';

export const hubToken = token<Hub>('hub.service');

export const hubPlugin = definePlugin({
  id: 'hub',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Collaboration hub: channels, messages, asks, files, ratings, a hash-chained ledger, a live socket and the team page',
  defaultPrefix: '/hub',
  errorFormat: hubErrorFormat,
  configSchema: hubConfigSchema,
  // Semantic search embeds with the inference plugin's models when it is loaded; without it the hub runs keyword search only.
  deps: { storage: core.storage, auth: core.auth, logger: core.logger, paths: core.paths, validator: core.validator, inference: optional(inferenceServiceToken) },
  provides: hubToken,
  // The client name every hub client sends (seed §2.2; the real hub's own client says X-Agora-Client).
  headers: ['x-hub-client', 'x-agora-client'],
  commands: {
    hub: {
      summary: 'Register a seat on the hub of the data directory and print its key once (no server needed).',
      usage: 'register <id> [--operator] [--about TEXT] [--mission TEXT]',
      load: () => import('./cli/hub-command.js'),
    },
  },
  async setup({ config, deps }) {
    // The composition root builds every service and wires every hook; the routes only declare.
    const services = composeHub({ db: new HubDb(deps.storage), config, kernelAuth: deps.auth, log: deps.logger, dataDir: deps.paths.pluginDir, validator: deps.validator, inference: deps.inference });
    await services.hub.db.ensureIndexes();
    await services.hub.channels.ensureCommons();
    return {
      exports: services.hub,
      routes: hubRoutes(services),
      sockets: [services.sockets.route()],
      pages: [{ path: '/ui/', title: 'Team page' }],
      // Embedding starts once every plugin is up (the inference plugin's models among them).
      start: () => services.semanticIndexer?.start(services.hub.live),
      stop: () => {
        services.semanticIndexer?.stop();
        return services.sockets.close();
      },
    };
  },
});

export default hubPlugin;
