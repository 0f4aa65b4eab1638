/**
 * `@keel/plugin-relay`: an OpenAI-shaped model relay (seed 002 §C, §1C; reference relay-protocol.md),
 * run as its own kernel profile (`keel serve --config config/relay.json`): its `/v1` would clash
 * with the gateway's. Parts: the bearer gate (`gate/`), traffic logs (`traffic/`), the upstream
 * account pool (`pool/`), the hosted lane (`hosted/`), the local command-line client lane
 * (`cli-client/`), the model catalog and local storage (`catalog/`, `storage/`), the routes
 * (`routes/`) and the status page (`ui/`).
 */
import path from 'node:path';
import { core, definePlugin, type RouteAuth } from '@keel/plugin-sdk';
import { relayConfigSchema } from './config.js';
import type { StatusParts, TextLane } from './contracts.js';
import { relayErrorFormat } from './errors.js';
import { configuredAccounts } from './catalog/configured-accounts.js';
import { configuredCliModels } from './catalog/configured-cli-models.js';
import { RelayModelCatalog } from './catalog/model-catalog.js';
import { modelsRoute } from './catalog/models-route.js';
import { HostedLane } from './hosted/hosted-lane.js';
import { RelayAccountPool } from './pool/account-pool.js';
import { accountsRoutes } from './routes/accounts-routes.js';
import { loggingRoutes } from './routes/logging-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';
import { textRoutes } from './routes/text-routes.js';
import { conversationRoutes } from './storage/conversation-routes.js';
import { RelayConversations } from './storage/conversation-store.js';
import { fileRoutes } from './storage/file-routes.js';
import { RelayFiles } from './storage/file-store.js';
import { TrafficLog } from './traffic/traffic-log.js';

export type { RelayConfig, HostedAccountConfig } from './config.js';
export type * from './contracts.js';
export { RelayFailure } from './contracts.js';
export { RelayAccountPool } from './pool/account-pool.js';
export type { AccountPoolOptions, ProbeResult } from './pool/account-pool.js';
export { slugOf, loadAccounts } from './pool/accounts.js';
export type { PoolAccount, UpstreamTarget } from './pool/accounts.js';
export { TrafficLog } from './traffic/traffic-log.js';
export type { LoggingStatus } from './traffic/traffic-log.js';

export const relayPlugin = definePlugin({
  id: 'relay',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'An OpenAI-shaped model relay: upstream account pool with failover, a local command-line model client, traffic logs',
  configSchema: relayConfigSchema,
  defaultPrefix: '/v1',
  errorFormat: relayErrorFormat,
  deps: { log: core.logger, storage: core.storage, paths: core.paths, clock: core.clock, host: core.host },
  setup({ config, deps }) {
    const traffic = new TrafficLog({
      logsDir: path.resolve(deps.paths.pluginDir, config.logging.dir),
      settings: config.logging,
      clock: deps.clock,
      log: deps.log.child({ part: 'traffic' }),
    });
    // Until the relay gate lands (part `gate`), the relay's own routes take the kernel's admin token.
    const relayAuth: RouteAuth = 'admin';
    const pool = config.hosted.enabled
      ? new RelayAccountPool({ config: config.hosted, traffic, clock: deps.clock, dataDir: deps.paths.pluginDir, warn: (message) => deps.log.warn(message) })
      : null;

    // catalog: models (the pool's accounts and agents, the client lane's models, once wired), files, conversations.
    const catalog = new RelayModelCatalog(
      { hostedEnabled: config.hosted.enabled, ttlSeconds: config.hosted.modelsCacheTtlSeconds, extraModels: config.hosted.extraModels, timeoutMs: config.hosted.requestTimeoutSeconds * 1000 },
      pool ? { accounts: () => pool.accounts, endpointOf: (account) => pool.upstreamOf(account) } : configuredAccounts(config.hosted.accounts),
      configuredCliModels(config.cli),
      traffic,
      deps.clock,
    );
    const files = new RelayFiles(deps.storage, deps.paths.pluginDir, config.uploads, deps.clock);
    const conversations = new RelayConversations(deps.storage, config.conversations, deps.clock);
    const status: StatusParts = { storage: () => ({ ...files.stats(), ...conversations.stats() }) };

    // hosted lane: the text routes' upstream runtime.
    const hosted: TextLane | undefined = pool
      ? new HostedLane({ pool, endpoints: pool, traffic, settings: config.hosted, conversations, files, now: () => deps.clock.nowMs() })
      : undefined;

    return {
      routes: [
        ...accountsRoutes(pool, relayAuth),
        ...subscriptionRoutes({ pool, cliEnabled: config.cli.enabled, auth: relayAuth }),
        ...loggingRoutes(traffic, relayAuth),
        modelsRoute(catalog, relayAuth, traffic),
        ...fileRoutes({ files, hostedEnabled: config.hosted.enabled, maxUploadBytes: config.uploads.maxUploadBytes, auth: relayAuth, traffic }),
        ...conversationRoutes({ conversations, hostedEnabled: config.hosted.enabled, maxBodyBytes: config.limits.maxBodyBytes, auth: relayAuth, traffic }),
        ...textRoutes({ auth: relayAuth, settings: config, traffic, lanes: { ...(hosted ? { hosted } : {}) }, catalog }),
      ],
      exports: { catalog, files, conversations, status },
      async start() {
        traffic.start();
        pool?.start();
        await files.start();
        conversations.start();
      },
      async stop() {
        pool?.stop();
        await traffic.stop();
      },
    };
  },
});

export default relayPlugin;
