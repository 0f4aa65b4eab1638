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
import { relayErrorFormat } from './errors.js';
import { loggingRoutes } from './routes/logging-routes.js';
import { TrafficLog } from './traffic/traffic-log.js';

export type { RelayConfig, HostedAccountConfig } from './config.js';
export type * from './contracts.js';
export { RelayFailure } from './contracts.js';
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
    return {
      routes: [...loggingRoutes(traffic, relayAuth)],
      start() {
        traffic.start();
      },
      async stop() {
        await traffic.stop();
      },
    };
  },
});

export default relayPlugin;
