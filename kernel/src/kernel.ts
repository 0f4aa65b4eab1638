/**
 * The kernel: boots a validated config into a running Koa app, and stops it in reverse.
 *
 * Boot: load plugins → validate their configs → order by dependency tokens → open LMDB and the
 * account store → set up each plugin (with a deadline) → mount routes (clashes are errors) →
 * start plugins. Anything that fails leaves nothing running: what was opened is closed again.
 * Stop (idempotent): stop accepting, end streams and close sockets (1001), drain requests, stop
 * plugins in reverse, close worker pools, close LMDB last.
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Koa from 'koa';
import type { RootDatabase } from 'lmdb';
import {
  core, gatewayErrorFormat, providedValues,
  type AnyPlugin, type AnyRoute, type Authenticator, type Clock, type ErrorFormatter, type HostInfo, type Logger, type PluginInstance, type Token,
} from '@keel/plugin-sdk';
import { AccountStore } from './auth/account-store.js';
import { BootError } from './boot-error.js';
import { AuthFailureCounter } from './auth/auth-failures.js';
import { AccountActivity } from './auth/account-activity.js';
import { AccountPreferences } from './auth/account-preferences.js';
import { BrowserSessions } from './auth/browser-sessions.js';
import { SigninCodes } from './auth/signin-codes.js';
import { TokenAuthService } from './auth/auth-service.js';
import { bootstrapAdmin } from './auth/bootstrap-admin.js';
import { environmentWithSecrets, markSecretValue, takeSecretEnv } from './env/secret-env.js';
import type { KernelConfig } from './config/kernel-config.js';
import { CORE_GATEWAY_PREFIX, createCorePlugin } from './core/core-plugin.js';
import type { LoadedPluginInfo, SigninStores } from './core/core-context.js';
import { KernelContainer } from './di/container.js';
import { EventLoopWatchdog } from './health/watchdog.js';
import { DataDirUsageMeter } from './host/data-dir-usage.js';
import { HostState } from './host/host-state.js';
import { ProcessRegistry } from './host/process-registry.js';
import { errorMiddleware } from './http/error-middleware.js';
import { capConnections, serverTimeouts } from './http/connection-limits.js';
import { buildRouter, checkRouteClashes, joinPath, securitySchemesOf, type MountedRoute } from './http/mount-routes.js';
import { OriginPolicy } from './http/origin-policy.js';
import { mountSocket, SocketHost, type UpgradeHandler } from './http/socket-upgrades.js';
import { RequestTracker } from './http/request-tracker.js';
import { securityHeaders } from './http/security-headers.js';
import { StreamRegistry } from './http/stream-registry.js';
import { looselyNormalizedPath, unmatchedRoutes } from './http/unmatched-routes.js';
import { createLogger, type LogSink } from './logging/logger.js';
import { buildOpenApi } from './openapi/build-openapi.js';
import { loadPluginsReporting, type LoadedPlugin, type PluginRequest } from './plugins/load-plugins.js';
import { orderPlugins } from './plugins/order-plugins.js';
import { validatePluginConfigs } from './plugins/plugin-config.js';
import { runSetup } from './plugins/run-setup.js';
import { PluginPaths } from './storage/plugin-paths.js';
import { lmdbPath, ScopedStorage } from './storage/lmdb-env.js';
import { openDataDir } from './storage/open-data-dir.js';
import { SchemaValidator } from './validation/validator.js';
import { KERNEL_VERSION } from './version.js';
import { HEALTH_FIELDS } from './core/health-routes.js';
import { PoolRegistry } from './workers/pool-registry.js';

export interface InlinePlugin {
  plugin: AnyPlugin;
  prefix?: string;
  mounts?: Record<string, string>;
  config?: Record<string, unknown>;
}

export interface KernelOptions {
  config: KernelConfig;
  /** Label for error messages (the config file path). */
  configLabel?: string;
  /** Directory plugin packages are resolved from. */
  baseDir?: string;
  mode?: HostInfo['mode'];
  /** The name this process goes by (`HostInfo.process`, its hang records); default `server`. */
  process?: string;
  /** Plugins given as values (tests, embedding), loaded after those of the config. */
  inlinePlugins?: InlinePlugin[];
  overrides?: Array<[Token<unknown>, unknown]>;
  /** Mount the kernel's own routes (health, about, accounts, docs). Off when embedding one plugin. */
  includeCore?: boolean;
  env?: NodeJS.ProcessEnv;
  logSink?: LogSink;
}

interface RunningPlugin {
  loaded: LoadedPlugin;
  instance: PluginInstance<unknown>;
  controller: AbortController;
  started: boolean;
}

const systemClock: Clock = { now: () => new Date(), nowMs: () => Date.now() };

function mountErrorFormat(plugin: AnyPlugin, mount: string): ErrorFormatter {
  const declared = mount === 'default' ? undefined : plugin.mounts?.[mount]?.errorFormat;
  return declared ?? plugin.errorFormat ?? gatewayErrorFormat;
}

/** What guards a mount's unmatched paths: nothing (false), the kernel's token (true), or the name of one of the plugin's authenticators. */
function mountGuardsUnmatched(plugin: AnyPlugin, mount: string): boolean | string {
  const guard = mount === 'default' ? plugin.guardUnmatched : plugin.mounts?.[mount]?.guardUnmatched;
  return typeof guard === 'string' ? guard : guard === true;
}

/** The plugin's own authenticator a `guardUnmatched` names (one of its routes' `auth`), or a boot error. */
function guardAuthenticator(pluginId: string, name: string, mounted: MountedRoute[]): Authenticator<unknown> {
  const found = mounted.find((m) => m.pluginId === pluginId && typeof m.route.auth === 'object' && m.route.auth.name === name);
  if (!found) throw new BootError(`plugin '${pluginId}' guards unmatched paths with the authenticator '${name}', which none of its routes uses as auth; name one of its routes' authenticators.`);
  return found.route.auth as Authenticator<unknown>;
}

/** Places a route under its mount point; a route naming a mount its plugin lacks is a boot error. */
function mountRoute(loaded: LoadedPlugin, route: AnyRoute): MountedRoute {
  const mount = route.mount ?? 'default';
  const prefix = loaded.mounts[mount];
  if (prefix === undefined) throw new BootError(`plugin '${loaded.plugin.id}' route ${route.method} ${route.path} names mount '${mount}', which the plugin does not declare.`);
  return { pluginId: loaded.plugin.id, prefix, fullPath: joinPath(prefix, route.path), route, errorFormat: mountErrorFormat(loaded.plugin, mount) };
}

export class Kernel {
  readonly app = new Koa();
  readonly log: Logger;
  readonly dataDir: string;
  readonly container = new KernelContainer();
  private readonly pools = new PoolRegistry();
  private readonly tracker = new RequestTracker();
  private readonly validator = new SchemaValidator();
  private readonly stopController = new AbortController();
  private readonly running: RunningPlugin[] = [];
  private readonly watchdog: EventLoopWatchdog;
  /** This process's heartbeat file among the processes sharing the data directory (`/processes`). */
  private readonly processes: ProcessRegistry;
  private lmdb: RootDatabase | undefined;
  private server: http.Server | undefined;
  private stopping: Promise<void> | undefined;
  private openApiDoc: Record<string, unknown> | undefined;
  private mounted: MountedRoute[] = [];
  private readonly origins: OriginPolicy;
  private readonly streams: StreamRegistry;
  private sockets: SocketHost | undefined;
  private token = '';

  private constructor(private readonly options: KernelOptions) {
    const { server } = options.config;
    this.log = createLogger(server.logLevel, { app: 'keel' }, options.logSink);
    this.dataDir = server.dataDir;
    this.watchdog = new EventLoopWatchdog({ ...server.watchdog, dataDir: this.dataDir, log: this.log.child({ component: 'watchdog' }), process: this.host.process });
    this.processes = new ProcessRegistry({ dataDir: this.dataDir, name: this.host.process, mode: this.host.mode, kernelVersion: KERNEL_VERSION, settings: server.processes, log: this.log.child({ component: 'processes' }), pools: () => this.pools.describe() });
    this.app.proxy = false;
    this.app.silent = true;
    this.origins = new OriginPolicy(server.origins);
    this.streams = new StreamRegistry(server.live.streamsPerAccount);
  }

  /** Boots a kernel; on any failure everything opened so far is closed and the error rethrown. */
  static async boot(options: KernelOptions): Promise<Kernel> {
    const kernel = new Kernel(options);
    try {
      await kernel.bootInternal();
      return kernel;
    } catch (err) {
      await kernel.stop().catch((stopErr: unknown) => kernel.log.error('cleanup after failed boot failed', { err: stopErr }));
      throw err;
    }
  }

  /** The bootstrap admin token in force. */
  get adminToken(): string {
    return this.token;
  }

  get routes(): readonly MountedRoute[] {
    return this.mounted;
  }

  get host(): HostInfo {
    return { mode: this.options.mode ?? 'server', process: this.options.process ?? 'server', kernelVersion: KERNEL_VERSION };
  }

  /** The `exports` a plugin's setup returned. */
  exportsOf(pluginId: string): unknown {
    return this.running.find((r) => r.loaded.plugin.id === pluginId)?.instance.exports;
  }

  resolve<T>(token: Token<T>): T {
    return this.container.resolve(token);
  }

  /** A Node request handler for this kernel's app (for `http.createServer`, Express, tests). */
  callback(): http.RequestListener {
    return this.app.callback();
  }

  /** Handles HTTP upgrades for the plugins' WebSocket endpoints (for hosts with their own server). */
  upgradeHandler(): UpgradeHandler {
    if (!this.sockets) throw new Error('the kernel has not booted');
    return this.sockets.handle;
  }

  /** Opens the listener; resolves with the bound address. */
  async listen(port = this.options.config.server.port, host = this.options.config.server.host): Promise<AddressInfo> {
    if (this.server) throw new Error('the kernel is already listening');
    const limits = this.options.config.server.http;
    const server = http.createServer(serverTimeouts(limits), this.callback());
    capConnections(server, limits);
    server.on('upgrade', this.upgradeHandler());
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  }

  stop(): Promise<void> {
    this.stopping ??= this.stopInternal();
    return this.stopping;
  }

  private async bootInternal(): Promise<void> {
    const { config } = this.options;
    const label = this.options.configLabel ?? 'config';
    const requests: PluginRequest[] = [
      ...config.plugins.map((entry, i) => ({ use: entry.use, prefix: entry.prefix, mounts: entry.mounts, config: entry.config, configKey: `plugins[${i}]`, enabled: entry.enabled }))
        .filter((r) => r.enabled !== false),
      ...(this.options.inlinePlugins ?? []).map((p) => ({ plugin: p.plugin, prefix: p.prefix, mounts: p.mounts, config: p.config, configKey: `plugins[${p.plugin.id}]` })),
    ];
    // A plugin that cannot load is reported with every config error of the others, not instead of them.
    const { loaded, problems } = await loadPluginsReporting(requests, this.options.baseDir ?? process.cwd(), label);
    this.origins.acceptHeaders(loaded.flatMap((l) => l.plugin.headers ?? []));
    const configs = validatePluginConfigs(loaded, this.validator, label, problems);
    for (const [token, value] of this.options.overrides ?? []) this.container.override(token, value);
    const hostProvided = new Set<symbol>([...Object.values(core).map((t) => t.key), ...(this.options.overrides ?? []).map(([t]) => t.key)]);
    const ordered = orderPlugins(loaded, hostProvided);

    this.lmdb = openDataDir(this.dataDir);
    // Listed from now on: a long setup (migrations) is a process on the data dir too.
    await this.processes.start();
    const accounts = new AccountStore(this.lmdb, () => systemClock.now());
    // Without an env of its own, the kernel reads the process's and removes its secrets from it first.
    if (!this.options.env) takeSecretEnv();
    this.token = await bootstrapAdmin(accounts, this.dataDir, this.options.env ?? environmentWithSecrets());
    markSecretValue(this.token);
    const signin = this.openSignin(this.lmdb, config);
    await Promise.all([signin.sessions.sweep(), signin.codes.sweep()]);
    const auth = new TokenAuthService(accounts, new AuthFailureCounter(config.server.authFailures, this.log.child({ component: 'auth' })), {
      sessions: signin.sessions,
      activity: signin.activity,
      preferences: signin.preferences,
      trustsCredentialsFrom: (origin, req) => this.origins.trustsCredentialsFrom(origin, req),
    });
    this.container.provide(core.auth, auth);
    this.container.provide(core.validator, this.validator);
    this.container.provide(core.clock, systemClock);
    this.container.provide(core.host, this.host);
    this.container.provide(core.watchdog, this.watchdog);

    const all = this.options.includeCore === false ? ordered : [this.coreEntry(accounts, auth, signin), ...ordered];
    for (const entry of all) await this.setupPlugin(entry, configs.get(entry.plugin.id) ?? {});

    this.checkHealthFields();
    this.mounted = this.running.flatMap(({ loaded: l, instance }) => (instance.routes ?? []).map((route) => mountRoute(l, route)));
    checkRouteClashes(this.mounted);
    securitySchemesOf(this.mounted);
    const { live } = config.server;
    this.sockets = new SocketHost(
      this.running.flatMap(({ loaded: l, instance }) => (instance.sockets ?? []).map((s) => mountSocket(l, s, mountErrorFormat(l.plugin, s.mount ?? 'default')))),
      { origins: this.origins, perAccount: live.socketsPerAccount, maxPayloadBytes: live.socketMaxPayloadBytes, failedAuth: auth, log: this.log.child({ component: 'sockets' }) },
    );
    this.buildApp(auth);

    for (const running of this.running) {
      await running.instance.start?.();
      running.started = true;
    }
    this.watchdog.start();
    // The first heartbeat was written before the plugins made their pools.
    await this.processes.refresh();
    this.log.info('kernel booted', { plugins: this.running.map((r) => r.loaded.plugin.id), dataDir: this.dataDir });
  }

  /** The stores behind browser sign-in, activity and preferences (`core/core-context.ts`). */
  private openSignin(lmdb: RootDatabase, config: KernelConfig): SigninStores {
    const now = () => systemClock.now();
    const { signin, accounts } = config.server;
    return {
      sessions: new BrowserSessions(lmdb, now, signin),
      codes: new SigninCodes(lmdb, now, signin),
      activity: new AccountActivity(lmdb, () => systemClock.nowMs(), accounts, this.log.child({ component: 'activity' })),
      preferences: new AccountPreferences(lmdb, now, accounts.preferencesMaxBytes),
      settings: config.server,
    };
  }

  private coreEntry(accounts: AccountStore, auth: TokenAuthService, signin: SigninStores): LoadedPlugin {
    const plugin = createCorePlugin({
      accounts,
      auth,
      signin,
      watchdog: this.watchdog,
      host: this.host,
      health: () => this.healthFields(),
      plugins: () => this.describePlugins(),
      hostState: new HostState({
        host: this.host, dataDir: this.dataDir, registry: this.processes, pools: this.pools, settings: this.options.config.server.processes,
        usage: new DataDirUsageMeter(this.dataDir, this.options.config.server.hostStatus),
        lastCommitId: () => (this.lmdb?.getStats() as { lastTxnId?: number } | undefined)?.lastTxnId ?? 0,
      }),
      openApi: () => (this.openApiDoc ??= buildOpenApi(this.mounted, {
        title: 'Keel',
        version: KERNEL_VERSION,
        description: 'Keel: a microkernel host for durable AI workflows. Every route of every loaded plugin.',
        plugins: this.running.map((r) => ({ id: r.loaded.plugin.id, version: r.loaded.plugin.version, description: r.loaded.plugin.description })),
      })),
    }) as unknown as AnyPlugin;
    return { plugin, source: '@keel/kernel', prefix: '/', mounts: { default: '/', gateway: CORE_GATEWAY_PREFIX }, rawConfig: {}, configKey: 'core' };
  }

  private async setupPlugin(loaded: LoadedPlugin, config: unknown): Promise<void> {
    const { plugin } = loaded;
    const id = plugin.id;
    const scope = this.container.forPlugin([
      [core.logger, this.log.child({ plugin: id })],
      [core.storage, new ScopedStorage(this.lmdb!, id, lmdbPath(this.dataDir))],
      [core.workers, this.pools.scoped(id)],
      [core.paths, new PluginPaths(this.dataDir, id)],
    ]);
    const deps = scope.resolveDeps(plugin.deps);
    const { instance, controller } = await runSetup(
      plugin,
      { config, deps, prefix: loaded.prefix, mounts: loaded.mounts, baseDir: this.options.baseDir ?? process.cwd() },
      this.stopController.signal,
      this.options.config.server.setupTimeoutMs,
    );
    this.running.push({ loaded, instance, controller, started: false });
    for (const { token, value, name } of providedValues(plugin.provides, instance.exports)) {
      if (name !== null && value === undefined) throw new BootError(`plugin '${id}' provides token '${token.name}' (provides.${name}), but its setup returned no exports.${name}.`);
      this.container.provide(token, value);
    }
  }

  /** The plugins' `/api/health` fields, read now. */
  private healthFields(): Record<string, unknown> {
    return Object.fromEntries(this.running.flatMap(({ instance }) => Object.entries(instance.health ?? {}).map(([name, read]) => [name, read()])));
  }

  /** A health field two plugins add, or one the kernel reports itself, is a boot error. */
  private checkHealthFields(): void {
    const owners = new Map<string, string>(HEALTH_FIELDS.map((name) => [name, 'the kernel']));
    for (const { loaded, instance } of this.running) {
      for (const name of Object.keys(instance.health ?? {})) {
        const owner = owners.get(name);
        if (owner) throw new BootError(`plugin '${loaded.plugin.id}' adds the health field '${name}', which ${owner === 'the kernel' ? 'the kernel reports itself' : `plugin '${owner}' adds too`}; rename one.`);
        owners.set(name, loaded.plugin.id);
      }
    }
  }

  private describePlugins(): LoadedPluginInfo[] {
    return this.running.map(({ loaded, instance }) => ({
      id: loaded.plugin.id,
      version: loaded.plugin.version,
      description: loaded.plugin.description ?? '',
      source: loaded.source,
      prefix: loaded.prefix,
      mounts: loaded.mounts,
      pages: (instance.pages ?? []).map((page) => ({ title: page.title, path: joinPath(loaded.mounts[page.mount ?? 'default'] ?? loaded.prefix, page.path) })),
    }));
  }

  private buildApp(auth: TokenAuthService): void {
    const formatForPath = this.formatForPath();
    const uploadDir = path.join(this.dataDir, 'tmp', 'uploads');
    mkdirSync(uploadDir, { recursive: true, mode: 0o700 });
    const router = buildRouter(this.mounted, {
      auth,
      validator: this.validator,
      bodyLimitBytes: this.options.config.server.bodyLimitBytes,
      jsonDepthLimit: this.options.config.server.jsonDepthLimit,
      validateResponses: this.options.config.server.validateResponses,
      uploadDir,
    });
    this.app.use(this.tracker.middleware());
    this.app.use(securityHeaders());
    this.app.use(errorMiddleware(this.log, formatForPath));
    this.app.use(this.origins.middleware());
    this.app.use(this.streams.middleware());
    this.app.use(router.routes());
    const tokenPaths = new Set(this.mounted.filter((m) => (m.route.auth ?? 'user') === 'user' || m.route.auth === 'admin').map((m) => m.fullPath));
    const guarded = this.running.flatMap((r) => Object.entries(r.loaded.mounts).flatMap(([name, prefix]) => {
      const guard = mountGuardsUnmatched(r.loaded.plugin, name);
      if (guard === false) return [];
      return [{ prefix, authenticator: guard === true ? null : guardAuthenticator(r.loaded.plugin.id, guard, this.mounted) }];
    }));
    this.app.use(unmatchedRoutes(router, auth, tokenPaths, guarded));
  }

  /** Unmatched paths answer in the error shape of the mount point whose prefix covers them. */
  private formatForPath(): (path: string) => ErrorFormatter {
    const prefixes = this.running
      .flatMap((r) => Object.entries(r.loaded.mounts).map(([name, prefix]) => ({ prefix, format: mountErrorFormat(r.loaded.plugin, name) })))
      .filter((m) => m.prefix !== '/')
      .sort((a, b) => b.prefix.length - a.prefix.length);
    const covering = (p: string) => prefixes.find((x) => p === x.prefix || p.startsWith(`${x.prefix}/`));
    // `//v1/x` or `/V1/x` is guarded as `/v1/x` (unmatched-routes): its refusal takes that mount's shape too.
    return (p) => (covering(p) ?? covering(looselyNormalizedPath(p)))?.format ?? gatewayErrorFormat;
  }

  private async stopInternal(): Promise<void> {
    const { shutdownTimeoutMs } = this.options.config.server;
    const server = this.server;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    this.stopController.abort(new Error('kernel stopping'));
    this.tracker.abortAll();
    this.streams.closeAll();
    // Upgraded sockets are no longer the HTTP server's: until they close, `closed` never resolves.
    const [drained] = await Promise.all([this.tracker.drain(shutdownTimeoutMs), this.sockets?.closeAll(shutdownTimeoutMs)]);
    if (!drained) this.log.warn('requests still in flight at shutdown; closing their connections', { active: this.tracker.active });
    server?.closeAllConnections();
    await closed;
    for (const running of [...this.running].reverse()) {
      try {
        running.controller.abort();
        if (running.started || running.instance.stop) await running.instance.stop?.();
      } catch (err) {
        this.log.error('plugin stop failed', { plugin: running.loaded.plugin.id, err });
      }
    }
    await this.pools.closeAll();
    await this.watchdog.stop();
    if (this.lmdb) {
      await this.lmdb.close();
      this.lmdb = undefined;
    }
    // Last: until here the process still works on the data dir.
    await this.processes.stop();
    this.log.info('kernel stopped');
  }
}
