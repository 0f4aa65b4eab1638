/**
 * The core tokens the kernel provides to every plugin. Each is scoped to the plugin that asks:
 * its logger carries the plugin id, its storage opens `<id>:<name>` sub-databases, its pools are
 * named `<id>:<name>`, its paths point at its own folders.
 */
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { Database, DatabaseOptions, Key } from 'lmdb';
import type { Piscina } from 'piscina';
import { token } from './tokens.js';
import type { JsonSchema, Schema } from './schema.js';
import type { WorkerStorageHandle } from './worker-storage.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type SubDatabaseOptions = Omit<DatabaseOptions, 'name' | 'path'>;

/** The plugin's view of the one LMDB environment under `<data>/db`. */
export interface PluginStorage {
  /** Opens (creating if needed) the sub-database `<plugin id>:<name>`. */
  openDB<V = unknown, K extends Key = Key>(name: string, options?: SubDatabaseOptions): Database<V, K>;
  /**
   * Runs `fn` in one write transaction across all sub-databases; resolves once the commit is durable.
   * Atomic: when `fn` throws, none of its writes are kept (and the promise rejects with the error).
   */
  transaction<T>(fn: () => T): Promise<T>;
  /**
   * The sub-database `<plugin id>:<name>` as a worker thread opens it: a serialisable handle with the
   * kernel's open options, for `openWorkerStorage` from `@keel/plugin-sdk/worker` (lmdb shares one
   * environment across a process's threads). `options` must be plain values, as for `openDB`.
   */
  workerHandle(name: string, options?: SubDatabaseOptions): WorkerStorageHandle;
}

export interface WorkerPoolOptions {
  /** The worker module (absolute path or file URL). */
  filename: string | URL;
  minThreads?: number;
  maxThreads?: number;
  idleTimeout?: number;
  concurrentTasksPerWorker?: number;
  workerData?: unknown;
}

/** A piscina pool; `run(task, { signal })` cancels a queued or running task when the signal aborts. */
export type WorkerPool = Piscina;

/** Piscina pools owned by the host: created per plugin, closed by the kernel at stop. */
export interface WorkerPools {
  /** Creates the pool `<plugin id>:<name>`; creating the same name twice is an error. */
  create(name: string, options: WorkerPoolOptions): WorkerPool;
  get(name: string): WorkerPool | undefined;
}

export interface Principal {
  account: string;
  tenant: string;
  roles: string[];
  /** Id of the token used (never the token itself); null for principals not made from a token. */
  tokenId: string | null;
}

export interface AuthService {
  /** The principal a bearer token stands for, or null when the token is unknown or revoked. */
  authenticate(bearerToken: string): Promise<Principal | null>;
  /** The principal the kernel attached to this request (null on public routes without a token). */
  principalOf(ctx: Koa.Context): Principal | null;
  isAdmin(principal: Principal | null): boolean;
  /**
   * The account named `account` as a principal (no token: `tokenId` null), or null when no such
   * account exists or it is disabled. For routes that name another account (policies, admin views).
   */
  accountOf(account: string): Principal | null;
  /**
   * The account's client preferences (`/accounts/{me}/preferences`, e.g. `time_zone`), `{}` when it
   * stored none. Optional for other implementations; read-only for plugins.
   */
  preferencesOf?(account: string): Record<string, unknown>;
  /** Throws 403 with a sentence unless the principal is an admin. */
  requireAdmin(principal: Principal | null): asserts principal is Principal;
  /**
   * Throws 429 (with Retry-After) when the request's source address has used up its failed
   * authentications (the kernel setting `server.authFailures`). Plugins that check their own keys
   * call it before checking one; a socket upgrade passes its `IncomingMessage`.
   */
  refuseThrottledSource(request: Koa.Context | IncomingMessage): void;
  /** Counts and logs a failed authentication (an unknown or revoked key) against the request's source address. */
  recordFailedAuthentication(request: Koa.Context | IncomingMessage, what: string): void;
}

export interface Validator {
  /** Compiles a schema once; the returned function throws a 400 naming the field when the value is invalid. */
  compile<T>(schema: Schema<T> | JsonSchema, where?: string): (value: unknown) => T;
}

export interface Clock {
  now(): Date;
  nowMs(): number;
}

export interface Paths {
  /** The data directory root (`<data>`). */
  readonly dataDir: string;
  /** This plugin's own folder, `<data>/plugins/<id>`, created on demand. */
  readonly pluginDir: string;
  /** Content-addressed large bytes, `<data>/blobs`. */
  readonly blobsDir: string;
  /** Scratch space on the same file system (for write-then-rename). */
  readonly tmpDir: string;
  /** A folder of this plugin scoped to one account: `<data>/plugins/<id>/accounts/<account>`. */
  forAccount(account: string): string;
}

export interface HostInfo {
  /**
   * How the kernel was started: `headless` is a plugin command serving the plugins without a
   * listener until a signal (`CommandContext.serve`), `cli` a one-shot command.
   */
  readonly mode: 'server' | 'embedded' | 'test' | 'cli' | 'headless';
  /**
   * The name this process goes by among the processes sharing the data directory: `server`, the
   * name a serving command gave it, or a one-shot command's name (`hub` for `keel hub register x`).
   * Its hang records, dumps and heartbeat file (`GET /api/gateway/processes`) carry it.
   */
  readonly process: string;
  readonly kernelVersion: string;
}

/** An event-loop hang the watchdog recorded. */
export interface HangRecord {
  at: string;
  /** The process that hung (`HostInfo.process`). */
  process: string;
  blocked_s: number;
  reason: string;
  top_frame: string | null;
  dump_path: string | null;
  file: string | null;
  line: number | null;
}

export interface WatchdogStatus {
  enabled: boolean;
  limit_s: number;
  last_tick_age_s: number | null;
}

/** The event-loop watchdog: this process's hangs, and those other processes on the data dir dumped. */
export interface Watchdog {
  status(): WatchdogStatus;
  /** This process's most recent hang, or null. */
  lastHang(): HangRecord | null;
  /** The most recent hang the process named `process` dumped under `<data>/host/hangs`, or null. */
  lastHangOf(process: string): HangRecord | null;
}

/** Core tokens; see each interface for what the plugin gets. */
export const core = {
  logger: token<Logger>('core.logger'),
  storage: token<PluginStorage>('core.storage'),
  workers: token<WorkerPools>('core.workers'),
  auth: token<AuthService>('core.auth'),
  validator: token<Validator>('core.validator'),
  clock: token<Clock>('core.clock'),
  paths: token<Paths>('core.paths'),
  host: token<HostInfo>('core.host'),
  watchdog: token<Watchdog>('core.watchdog'),
} as const;
