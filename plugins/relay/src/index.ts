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
import type { StatusParts, TextLane } from './contracts.js';
import { relayErrorFormat } from './errors.js';
import { relayGate, RELAY_AUTHENTICATOR_NAME } from './gate/relay-gate.js';
import { loadRelayToken } from './gate/relay-token.js';
import { statusRoute } from './routes/status-route.js';
import { unpublishedRoutes } from './routes/unpublished-routes.js';
import { configuredAccounts } from './catalog/configured-accounts.js';
import { checkCliGuardrails, CliClient, defaultCliCommand, disabledCliStatus } from './cli-client/cli-client.js';
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
export { accountsRoutes } from './routes/accounts-routes.js';
export { subscriptionRoutes } from './routes/subscription-routes.js';
export type { SubscriptionRoutesOptions, CliUsageStatus } from './routes/subscription-routes.js';
export { TrafficLog } from './traffic/traffic-log.js';
export type { LoggingStatus } from './traffic/traffic-log.js';

const RELAY_VERSION = '0.1.0';

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
    checkCliGuardrails(config);
    const logsDir = path.resolve(deps.paths.pluginDir, config.logging.dir);
    const traffic = new TrafficLog({
      logsDir,
      settings: config.logging,
      clock: deps.clock,
      log: deps.log.child({ part: 'traffic' }),
    });

    // gate: the relay token and the bearer gate of every /v1 route (and of unmatched /v1 paths).
    // A one-shot command (`keel relay ...`) inspects: it neither creates the token nor refuses to run without one.
    const token = await loadRelayToken(config.auth, deps.paths.pluginDir, { env: process.env, create: deps.host.mode !== 'cli' });
    if (token.created) deps.log.info('relay token created', { file: token.file });
    else if (token.value !== null) deps.log.info('relay token loaded', { source: token.source, file: token.source === 'file' ? token.file : undefined });
    const gate = relayGate(config, { token: token.value, clock: deps.clock, traffic, prefix });
    const relayAuth = gate.authenticator;
    const pool = config.hosted.enabled
      ? new RelayAccountPool({ config: config.hosted, traffic, clock: deps.clock, dataDir: deps.paths.pluginDir, warn: (message) => deps.log.warn(message) })
      : null;

    // cli: the local command-line client (`cli:` models): its lane, models, status block and usage answer.
    const cli = config.cli.enabled ? new CliClient(config, config.cli.command ?? defaultCliCommand(deps.paths.pluginDir), traffic, () => deps.clock.nowMs()) : null;

    // catalog: models (the pool's accounts and agents, the client lane's models, once wired), files, conversations.
    const catalog = new RelayModelCatalog(
      { hostedEnabled: config.hosted.enabled, ttlSeconds: config.hosted.modelsCacheTtlSeconds, extraModels: config.hosted.extraModels, timeoutMs: config.hosted.requestTimeoutSeconds * 1000 },
      pool ? { accounts: () => pool.accounts, endpointOf: (account) => pool.upstreamOf(account) } : configuredAccounts(config.hosted.accounts),
      cli ?? { enabled: false, models: () => Promise.resolve([]) },
      traffic,
      deps.clock,
    );
    const files = new RelayFiles(deps.storage, deps.paths.pluginDir, config.uploads, deps.clock);
    const conversations = new RelayConversations(deps.storage, config.conversations, deps.clock);
    const status: StatusParts = { storage: () => ({ ...files.stats(), ...conversations.stats() }), cli: () => cli?.status() ?? disabledCliStatus() };
    if (pool) status.hosted = () => pool.statusOf();

    // hosted lane: the text routes' upstream runtime.
    const hosted: TextLane | undefined = pool
      ? new HostedLane({ pool, endpoints: pool, traffic, settings: config.hosted, conversations, files, now: () => deps.clock.nowMs() })
      : undefined;

    // gate: the status route (composed from `status`) and the routes the relay does not serve (501).
    const unpublished = unpublishedRoutes({ auth: relayAuth, traffic, maxBodyBytes: config.limits.maxBodyBytes });
    const routes: AnyRoute[] = [];
    const publishedPaths = () => [...new Set(routes.filter((r) => (r.mount ?? 'default') === 'default' && !unpublished.includes(r)).map((r) => `${prefix}${r.path}`))];
    routes.push(statusRoute({ config, gate, auth: relayAuth, token, parts: status, version: RELAY_VERSION, prefix, pluginDir: deps.paths.pluginDir, logsDir, supportedRoutes: publishedPaths }) as AnyRoute);
    routes.push(...unpublished);
    const cliServices: RelayExports['cli'] = {
      config, token, prefix, pluginDir: deps.paths.pluginDir, logsDir, parts: status,
      ...(cli ? { probeCli: async () => (await cli.readiness(), cli.status()) } : {}),
    };

    routes.push(
      ...accountsRoutes(pool, relayAuth),
      ...subscriptionRoutes({ pool, cliEnabled: config.cli.enabled, ...(cli ? { cliUsage: () => cli.subscriptionStatus() } : {}), auth: relayAuth }),
      ...loggingRoutes(traffic, relayAuth),
      modelsRoute(catalog, relayAuth, traffic),
      ...fileRoutes({ files, hostedEnabled: config.hosted.enabled, maxUploadBytes: config.uploads.maxUploadBytes, auth: relayAuth, traffic }),
      ...conversationRoutes({ conversations, hostedEnabled: config.hosted.enabled, maxBodyBytes: config.limits.maxBodyBytes, auth: relayAuth, traffic }),
      ...textRoutes({ auth: relayAuth, settings: config, traffic, lanes: { ...(hosted ? { hosted } : {}), ...(cli ? { cli: cli.lane } : {}) }, catalog }),
    );

    return {
      routes,
      exports: { catalog, files, conversations, status, cli: cliServices },
      async start() {
        // A one-shot `keel relay ...` inspects: no traffic log, no gate record, no upstream probes, no client subprocess.
        if (deps.host.mode !== 'cli') {
          traffic.start();
          gate.announce(token.created);
          pool?.start();
          cli?.warm();
        }
        await files.start();
        conversations.start();
      },
      async stop() {
        pool?.stop();
        cli?.stop();
        await traffic.stop();
      },
    };
  },
});

export default relayPlugin;
