/**
 * `@keel/plugin-relay`: an OpenAI-shaped model relay (seed 002 §C, §1C; reference relay-protocol.md),
 * run as its own kernel profile (`keel serve --config config/relay.json`): its `/v1` would clash
 * with the gateway's. Parts: the bearer gate (`gate/`), traffic logs (`traffic/`), the upstream
 * account pool (`pool/`), the hosted lane (`hosted/`), the local command-line client lane
 * (`cli-client/`), the model catalog and local storage (`catalog/`, `storage/`), the routes
 * (`routes/`) and the status page (`ui/`).
 */
import path from 'node:path';
import { core, definePlugin, type AnyRoute } from '@keel/plugin-sdk';
import type { RelayExports } from './cli/relay-cli-services.js';
import { relayConfigSchema } from './config.js';
import type { StatusParts } from './contracts.js';
import { relayErrorFormat } from './errors.js';
import { loggingRoutes } from './routes/logging-routes.js';
import { TrafficLog } from './traffic/traffic-log.js';
import { relayGate, RELAY_AUTHENTICATOR_NAME } from './gate/relay-gate.js';
import { loadRelayToken } from './gate/relay-token.js';
import { statusRoute } from './routes/status-route.js';
import { unpublishedRoutes } from './routes/unpublished-routes.js';

const RELAY_VERSION = '0.1.0';

export type { RelayConfig, HostedAccountConfig } from './config.js';
export type * from './contracts.js';
export { RelayFailure } from './contracts.js';
export { TrafficLog } from './traffic/traffic-log.js';
export type { LoggingStatus } from './traffic/traffic-log.js';

export const relayPlugin = definePlugin({
  id: 'relay',
  version: RELAY_VERSION,
  sdk: '^1.0.0',
  description: 'An OpenAI-shaped model relay: upstream account pool with failover, a local command-line model client, traffic logs',
  configSchema: relayConfigSchema,
  defaultPrefix: '/v1',
  errorFormat: relayErrorFormat,
  // Unmatched paths under the prefix need the relay token too (401 before 404/405), through the gate.
  guardUnmatched: RELAY_AUTHENTICATOR_NAME,
  deps: { log: core.logger, storage: core.storage, paths: core.paths, clock: core.clock, host: core.host },
  commands: {
    relay: {
      summary: 'Inspect the relay (status, doctor: settings, token, upstream accounts) or ask the running relay (models, accounts refresh).',
      usage: 'status|doctor [--skip-response]|models|accounts refresh [--json] [--url <relay /v1 root>]',
      load: () => import('./cli/relay-command.js'),
    },
  },
  async setup({ config, deps, prefix }) {
    const { paths, clock, host, log } = deps;
    const pluginDir = paths.pluginDir;
    const logsDir = path.resolve(pluginDir, config.logging.dir);
    // A one-shot command inspects: it neither creates the token nor refuses to run without one.
    const token = await loadRelayToken(config.auth, pluginDir, { env: process.env, create: host.mode !== 'cli' });
    if (token.created) log.info('relay token created', { file: token.file });
    else if (token.value !== null) log.info('relay token loaded', { source: token.source, file: token.source === 'file' ? token.file : undefined });

    const traffic = new TrafficLog({ logsDir, settings: config.logging, clock, log: log.child({ part: 'traffic' }) });
    const statusParts: StatusParts = {};

    const gate = relayGate(config, { token: token.value, clock, traffic, prefix });
    const routes: AnyRoute[] = [];
    const publishedPaths = () => [...new Set(routes.filter((r) => !unpublished.includes(r)).map((r) => `${prefix}${r.path}`))];
    routes.push(statusRoute({ config, gate, auth: gate.authenticator, token, parts: statusParts, version: RELAY_VERSION, prefix, pluginDir, logsDir, supportedRoutes: publishedPaths }) as AnyRoute);
    const unpublished = unpublishedRoutes({ auth: gate.authenticator, traffic, maxBodyBytes: config.limits.maxBodyBytes });
    routes.push(...unpublished);
    routes.push(...loggingRoutes(traffic, gate.authenticator));

    const exports: RelayExports = { cli: { config, token, prefix, pluginDir, logsDir, parts: statusParts } };
    return {
      routes,
      exports,
      start() {
        if (host.mode === 'cli') return;
        traffic.start();
        gate.announce(token.created);
      },
      async stop() {
        await traffic.stop();
      },
    };
  },
});

export default relayPlugin;
