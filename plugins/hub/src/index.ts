/**
 * `@keel/plugin-hub`: the collaboration hub (seed 001) — seats and operators, channels, messages
 * with asks and answers, a hash-chained transcript per channel, a live socket and the team page.
 * Mounted at `/hub`; wire-compatible with clients written for the `agora/0.4` protocol.
 */
import { core, definePlugin, token, type AnyRoute } from '@keel/plugin-sdk';
import { hubConfigSchema } from './config.js';
import { contentRoutes } from './content/content-routes.js';
import { Hub } from './hub.js';
import { hubErrorFormat } from './hub-error-format.js';
import { SocketServer } from './live/socket-server.js';
import { channelRoutes } from './routes/channel-routes.js';
import { discoveryRoutes } from './routes/discovery-routes.js';
import { governanceRoutes } from './routes/governance-routes.js';
import { identityRoutes } from './routes/identity-routes.js';
import { inboxRoutes } from './routes/inbox-routes.js';
import { ledgerRoutes } from './routes/ledger-routes.js';
import { messageRoutes } from './routes/message-routes.js';
import { HubDb } from './store/hub-db.js';
import { uiRoutes } from './ui/ui-routes.js';
import { requireWellFormedText } from './well-formed-text.js';

export { Hub, HUB_PROTOCOL, HUB_VERSION } from './hub.js';
export type { HubConfig } from './config.js';

export const hubToken = token<Hub>('hub.service');

export const hubPlugin = definePlugin({
  id: 'hub',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Collaboration hub: channels, messages, asks, files, ratings, a hash-chained ledger, a live socket and the team page',
  defaultPrefix: '/hub',
  errorFormat: hubErrorFormat,
  configSchema: hubConfigSchema,
  deps: { storage: core.storage, auth: core.auth, logger: core.logger, paths: core.paths },
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
    const hub = new Hub(new HubDb(deps.storage), config, deps.auth, deps.logger, deps.paths.pluginDir);
    await hub.channels.ensureCommons();
    const sockets = new SocketServer(hub, hub.presence);
    hub.severSockets = (agent) => sockets.sever(agent);
    return {
      exports: hub,
      routes: requireWellFormedText([
        ...identityRoutes(hub),
        ...channelRoutes(hub),
        ...messageRoutes(hub),
        ...inboxRoutes(hub),
        ...ledgerRoutes(hub),
        ...contentRoutes(hub),
        ...discoveryRoutes(hub),
        ...governanceRoutes(hub),
        ...uiRoutes(),
      ] as AnyRoute[]),
      sockets: [sockets.route()],
      pages: [{ path: '/ui/', title: 'Team page' }],
      stop: () => sockets.close(),
    };
  },
});

export default hubPlugin;
