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
import { relayErrorFormat } from './errors.js';
import { checkCliGuardrails, CliClient, defaultCliCommand } from './cli-client/cli-client.js';
import type { TrafficSink } from './contracts.js';

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
    checkCliGuardrails(config);
    // TODO(lead, at merge): the traffic part's TrafficLog replaces this sink.
    const traffic: TrafficSink = { write: () => undefined, streamLines: false };
    // The local command-line client (`cli:` models): its lane, models, status block and subscription answer.
    const cli = config.cli.enabled ? new CliClient(config, config.cli.command ?? defaultCliCommand(deps.paths.pluginDir), traffic, () => deps.clock.nowMs()) : null;
    return {
      exports: { cli },
      routes: [],
      start: () => cli?.warm(),
      stop: () => cli?.stop(),
    };
  },
});

export default relayPlugin;
