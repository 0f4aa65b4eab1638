/**
 * `@keel/plugin-relay`: an OpenAI-shaped model relay (seed 002 §C, §1C; reference relay-protocol.md),
 * run as its own kernel profile (`keel serve --config config/relay.json`): its `/v1` would clash
 * with the gateway's. Parts: the bearer gate (`gate/`), traffic logs (`traffic/`), the upstream
 * account pool (`pool/`), the hosted lane (`hosted/`), the local command-line client lane
 * (`cli-client/`), the model catalog and local storage (`catalog/`, `storage/`), the routes
 * (`routes/`) and the status page (`ui/`).
 */
import { core, definePlugin } from '@keel/plugin-sdk';
import { relayConfigSchema } from './config.js';
import type { TrafficSink } from './contracts.js';
import { relayErrorFormat } from './errors.js';
import { RelayAccountPool } from './pool/account-pool.js';
import { accountsRoutes } from './routes/accounts-routes.js';
import { subscriptionRoutes } from './routes/subscription-routes.js';

export type { RelayConfig, HostedAccountConfig } from './config.js';
export type * from './contracts.js';
export { RelayFailure } from './contracts.js';
export { RelayAccountPool } from './pool/account-pool.js';
export type { AccountPoolOptions, ProbeResult } from './pool/account-pool.js';
export { slugOf, loadAccounts } from './pool/accounts.js';
export type { PoolAccount, UpstreamTarget } from './pool/accounts.js';
export { accountsRoutes } from './routes/accounts-routes.js';
export { subscriptionRoutes } from './routes/subscription-routes.js';
export type { SubscriptionRoutesOptions, CliUsageStatus } from './routes/subscription-routes.js';

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
    // i16-traffic replaces this with its TrafficLog; until then records go nowhere.
    const traffic: TrafficSink = { write: () => {}, streamLines: false };
    // i16-gate replaces this with relayGate(config, deps); until then the kernel's admin token guards the routes.
    const relayAuth = 'admin' as const;
    const pool = config.hosted.enabled
      ? new RelayAccountPool({ config: config.hosted, traffic, clock: deps.clock, dataDir: deps.paths.pluginDir, warn: (message) => deps.log.warn(message) })
      : null;
    return {
      routes: [
        ...accountsRoutes(pool, relayAuth),
        ...subscriptionRoutes({ pool, cliEnabled: config.cli.enabled, auth: relayAuth }),
      ],
      start: () => pool?.start(),
      stop: () => pool?.stop(),
    };
  },
});

export default relayPlugin;
