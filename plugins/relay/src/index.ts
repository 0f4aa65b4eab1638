/**
 * `@keel/plugin-relay`: an OpenAI-shaped model relay (seed 002 §C, §1C; reference relay-protocol.md),
 * run as its own kernel profile (`keel serve --config config/relay.json`): its `/v1` would clash
 * with the gateway's. Parts: the bearer gate (`gate/`), traffic logs (`traffic/`), the upstream
 * account pool (`pool/`), the hosted lane (`hosted/`), the local command-line client lane
 * (`cli-client/`), the model catalog and local storage (`catalog/`, `storage/`), the routes
 * (`routes/`) and the status page (`ui/`).
 */
import { core, definePlugin, type RouteAuth } from '@keel/plugin-sdk';
import { relayConfigSchema } from './config.js';
import type { StatusParts, TrafficSink } from './contracts.js';
import { relayErrorFormat } from './errors.js';
import { configuredAccounts } from './catalog/configured-accounts.js';
import { configuredCliModels } from './catalog/configured-cli-models.js';
import { RelayModelCatalog } from './catalog/model-catalog.js';
import { modelsRoute } from './catalog/models-route.js';
import { conversationRoutes } from './storage/conversation-routes.js';
import { RelayConversations } from './storage/conversation-store.js';
import { fileRoutes } from './storage/file-routes.js';
import { RelayFiles } from './storage/file-store.js';

export type { RelayConfig, HostedAccountConfig } from './config.js';
export type * from './contracts.js';
export { RelayFailure } from './contracts.js';

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
    // Until the gate and the traffic log are wired: the kernel's bearer token guards the routes, and records go nowhere.
    const auth: RouteAuth = 'user';
    const traffic: TrafficSink = { write: () => undefined, streamLines: false };

    // catalog: models (the pool's accounts and agents, the client lane's models, once wired), files, conversations.
    const catalog = new RelayModelCatalog(
      { hostedEnabled: config.hosted.enabled, ttlSeconds: config.hosted.modelsCacheTtlSeconds, extraModels: config.hosted.extraModels, timeoutMs: config.hosted.requestTimeoutSeconds * 1000 },
      configuredAccounts(config.hosted.accounts),
      configuredCliModels(config.cli),
      traffic,
      deps.clock,
    );
    const files = new RelayFiles(deps.storage, deps.paths.pluginDir, config.uploads, deps.clock);
    const conversations = new RelayConversations(deps.storage, config.conversations, deps.clock);
    const status: StatusParts = { storage: () => ({ ...files.stats(), ...conversations.stats() }) };

    return {
      routes: [
        modelsRoute(catalog, auth, traffic),
        ...fileRoutes({ files, hostedEnabled: config.hosted.enabled, maxUploadBytes: config.uploads.maxUploadBytes, auth, traffic }),
        ...conversationRoutes({ conversations, hostedEnabled: config.hosted.enabled, maxBodyBytes: config.limits.maxBodyBytes, auth, traffic }),
      ],
      exports: { catalog, files, conversations, status },
      start: async () => {
        await files.start();
        conversations.start();
      },
    };
  },
});

export default relayPlugin;
