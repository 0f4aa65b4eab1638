/**
 * The local command-line client runtime: its lane, its models for the catalog (`cli:<name>`), its
 * `providers.cli` status block (reference §1.7) and its answer to `GET /v1/subscription/status?
 * provider=cli` (reference §1.5). Built once by `index.ts` when `cli.enabled`.
 */
import { fileURLToPath } from 'node:url';
import { StartRefusedError } from '@keel/plugin-sdk';
import path from 'node:path';
import type { CliModel, CliModels } from '../catalog/catalog-sources.js';
import { RelayFailure, type TrafficSink } from '../contracts.js';
import type { RelayConfig } from '../config.js';
import { childEnv } from './cli-env.js';
import { CliLane } from './cli-lane.js';
import { CliProbe, type Readiness } from './cli-probe.js';

export const CLI_PREFIX = 'cli:';

/** This Keel's own `keel` launcher (kernel/bin/keel.js), from the relay's dist folder. */
export const KEEL_BIN = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../kernel/bin/keel.js');
const KEEL_DEFAULT_CONFIG = path.resolve(path.dirname(KEEL_BIN), '../../config/default.json');

/**
 * `cli.command` null: this Keel's own `keel prompt`, run by the same Node, on its default config with
 * only the inference plugin, on a data folder of its own under the relay's (the bundled tiny model
 * and any model put in `<that folder>/models` are its models).
 */
export function defaultCliCommand(pluginDir: string): string[] {
  return [process.execPath, KEEL_BIN, 'prompt', '--config', KEEL_DEFAULT_CONFIG, '--plugins', 'inference', '--data-dir', path.join(pluginDir, 'local-client')];
}

/**
 * Reference §4.1: the local client answers with the machine owner's sign-in, so the relay must not
 * trust forwarded client addresses while it is on. (The listener's host is not visible to a plugin:
 * `keel serve` binds 127.0.0.1 unless configured otherwise; see the README.)
 */
export function checkCliGuardrails(config: RelayConfig): void {
  if (config.cli.enabled && config.gate.trustXForwardedFor) {
    throw new StartRefusedError('relay: cli.enabled and gate.trustXForwardedFor cannot both be on (the local command-line client is for this machine only); turn one of them off.');
  }
}

export class CliClient implements CliModels {
  readonly enabled = true;
  readonly lane: CliLane;
  private readonly probe: CliProbe;

  constructor(
    private readonly config: RelayConfig,
    readonly command: string[],
    traffic: TrafficSink,
    now: () => number,
  ) {
    const env = () => childEnv(process.env, config.cli.stripApiKeyEnv);
    this.lane = new CliLane(config.cli, command, traffic, env);
    this.probe = new CliProbe(command, env(), config.cli.models, config.hosted.modelsCacheTtlSeconds * 1000, now);
  }

  /**
   * The models (`cli:<name>`) for the catalog and routing: discovered from the client (cached
   * `hosted.modelsCacheTtlSeconds`), extended by `cli.models`, which stay when discovery fails.
   */
  async models(options: { refresh?: boolean } = {}): Promise<CliModel[]> {
    const found = await this.probe.models(options.refresh === true);
    return found.names.map((name) => ({
      id: `${CLI_PREFIX}${name}`,
      upstreamModel: name,
      resolvedModel: name,
      // A name the setting lists counts as configured even when the client lists it too.
      source: found.discovered.includes(name) && !this.config.cli.models.includes(name) ? 'cli_catalog' as const : 'configured' as const,
    }));
  }

  /** Starts the first readiness probe (the status route never waits for it). */
  warm(): void {
    this.probe.cachedReadiness();
  }

  /** Readiness, probing synchronously only on the first call (for `keel relay doctor`). */
  readiness(): Promise<Readiness> {
    return this.probe.readinessNow();
  }

  /** `providers.cli` of `GET /v1/relay/status`: cached answers only, never a subprocess wait. */
  status(): Record<string, unknown> {
    const r = this.probe.cachedReadiness();
    const models = this.probe.cachedModels();
    const notes: string[] = [];
    if (!r) notes.push('The first readiness check of the local client is running; ask again in a few seconds.');
    else if (r.problem) notes.push(r.problem);
    if (models.error) notes.push(models.error);
    return {
      enabled: true,
      local_only: true,
      requires_relay_bearer_auth: this.config.auth.requireBearerAuth,
      stateless_only: true,
      ready_for_requests: r !== null && r.cli_installed && r.logged_in,
      cli_installed: r?.cli_installed ?? null,
      cli_version: r?.cli_version ?? null,
      auth_method: r?.auth_method ?? null,
      api_provider: r?.api_provider ?? null,
      logged_in: r?.logged_in ?? null,
      email: r?.email ?? null,
      subscription_type: r?.subscription_type ?? null,
      models: models.names.map((n) => `${CLI_PREFIX}${n}`),
      models_source: models.source,
      checked_at: r ? new Date(r.checked_at).toISOString() : null,
      active_requests: this.lane.active,
      queued_requests: this.lane.queued,
      max_concurrent_requests: this.config.cli.maxConcurrentRequests,
      command: this.command,
      notes,
    };
  }

  /**
   * `GET /v1/subscription/status?provider=cli`. A local client reports no usage windows (Keel's own
   * runs local models: nothing is metered), and windows are never synthesised (reference §1.5, §8
   * item 13): the answer is the shape with `rate_limits.default` null and no `additional` entries,
   * with the account the client's `auth status` names. Waits only for the first readiness probe.
   */
  async subscriptionStatus(): Promise<Record<string, unknown>> {
    const r = await this.probe.readinessNow();
    if (!r.cli_installed) {
      throw new RelayFailure(503, { message: `The local command-line client is not available (${r.problem ?? 'not installed'}); requests to cli: models fail until it is.`, type: 'provider_unavailable', code: 'provider_unavailable', param: null });
    }
    return {
      object: 'subscription_status',
      provider: 'cli',
      captured_at: new Date(r.checked_at).toISOString(),
      source: { kind: 'local_client', api_provider: r.api_provider, auth_method: r.auth_method },
      account: { email: r.email, plan_type: r.subscription_type },
      rate_limit_reached_type: null,
      rate_limits: { default: null, additional: [] },
      usage_reported: false,
      notes: ['The local command-line client reports no usage windows; none are invented.'],
    };
  }

  stop(): void {
    this.lane.stop();
    this.probe.stop();
  }
}

/** `providers.cli` when the runtime is disabled (reference §1.7). */
export function disabledCliStatus(): Record<string, unknown> {
  return { enabled: false, ready_for_requests: false, notes: ['The local command-line client runtime is off; set relay.cli.enabled to true to route cli: models to it.'] };
}
