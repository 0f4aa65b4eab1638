/** The kernel config file: server settings and the plugin set. The JSON schema is the source of truth. */
import type { LogLevel } from '../logging/logger.js';

export interface PluginEntry {
  /** A package name (`@keel/plugin-inference`) or a path (`./plugins/mine`, relative to the config file). */
  use: string;
  /** Mount prefix for the plugin's routes (default: the plugin's own `defaultPrefix`). */
  prefix?: string;
  /** Prefixes for the plugin's other named mount points (`{"openai": "/v1"}`). */
  mounts?: Record<string, string>;
  /** The plugin's config, validated against its schema. */
  config?: Record<string, unknown>;
  /** Set false to keep an entry in the file without loading it. */
  enabled?: boolean;
}

export interface WatchdogConfig {
  enabled: boolean;
  /** Seconds the event loop may stay blocked before a hang is recorded. */
  limitS: number;
}

/** Failed authentication (bad bearer tokens, bad seat keys) per source address. */
export interface AuthFailuresConfig {
  /** Failures one source may make within `windowMs`; beyond it, requests carrying a key get 429. */
  burst: number;
  windowMs: number;
}

/** Browser sign-in: server-side sessions behind an HttpOnly cookie, and one-time sign-in codes. */
export interface SigninConfig {
  /** How long a browser session lives after its sign-in; the cookie and the server record end together. */
  sessionTtlMs: number;
  /** Browser sessions one account may hold at once; a new sign-in beyond it ends the oldest. */
  sessionsPerAccount: number;
  /** How long a one-time sign-in code stays claimable. */
  codeTtlMs: number;
  /** Unclaimed sign-in codes one account may hold at once; more are refused with 429. */
  codesPerAccount: number;
  /** `auto`: the cookie is Secure when the request came over TLS; `always` behind a TLS proxy; `never` for plain-HTTP tests. */
  secureCookie: 'auto' | 'always' | 'never';
}

/** What the kernel keeps per account besides tokens: its activity log and client preferences. */
export interface AccountsConfig {
  /** Activity entries kept per account; the oldest are dropped beyond it. */
  activityLimit: number;
  /** Authenticated requests of one account within this span are one activity entry with a count. */
  activityCoalesceMs: number;
  /** Largest client preferences object one account may store, in bytes of JSON. */
  preferencesMaxBytes: number;
}

/** Long-lived connections: event streams and WebSockets. */
export interface LiveConfig {
  /** Event streams (SSE) one account may hold open at once; more are refused with 429. */
  streamsPerAccount: number;
  /** WebSockets one account may hold open at once, all plugins together; more are refused with 429. */
  socketsPerAccount: number;
  /** Largest WebSocket message a client may send; a larger one closes that socket with 1009. */
  socketMaxPayloadBytes: number;
}

/** Bounds on every HTTP connection of `Kernel.listen()` (an embedding host's own server owns these). */
export interface HttpConfig {
  /** Time a client has to send a request's headers; a slower one is cut off (slowloris). */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body; a slower one gets 408. Not a limit on
   * responses: event streams and WebSockets stay open as long as they are used. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections in total; more are closed as they arrive. */
  maxConnections: number;
  /** Open connections from one remote address (loopback included); more are closed as they arrive. */
  connectionsPerSource: number;
}

/** The heartbeat files the processes sharing a data directory keep under `<data>/host/processes/`. */
export interface ProcessesConfig {
  /** How often this process rewrites its heartbeat file. */
  heartbeatIntervalMs: number;
  /** A process whose heartbeat is older than this is shown dead (must exceed `heartbeatIntervalMs`). */
  staleAfterMs: number;
  /** A dead process's file is removed once its last heartbeat is this old. */
  sweepAfterMs: number;
}

/** `GET /api/gateway/host/status`: how much of the data directory's size summary is measured. */
export interface HostStatusConfig {
  /** Files and folders the size summary walks at most; beyond it the summary says `complete: false`. */
  dataScanMaxEntries: number;
  /** How long a size summary is reused before the data directory is walked again. */
  dataScanCacheMs: number;
}

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Browser origins allowed besides the server's own (`https://app.example.com`); `*` allows any. */
  origins: string[];
  logLevel: LogLevel;
  bodyLimitBytes: number;
  /** JSON bodies nested deeper than this (objects and arrays) are refused with 400. */
  jsonDepthLimit: number;
  /** Check JSON responses against the response schemas routes declare; a mismatch is a 500 naming the fields (for tests). */
  validateResponses: boolean;
  authFailures: AuthFailuresConfig;
  signin: SigninConfig;
  accounts: AccountsConfig;
  setupTimeoutMs: number;
  shutdownTimeoutMs: number;
  watchdog: WatchdogConfig;
  live: LiveConfig;
  http: HttpConfig;
  processes: ProcessesConfig;
  hostStatus: HostStatusConfig;
}

export interface KernelConfig {
  server: ServerConfig;
  plugins: PluginEntry[];
}

export const DEFAULT_CONFIG_PATH = 'config/default.json';

export const kernelConfigSchema = {
  $id: 'https://keel.dev/schemas/kernel-config.json',
  title: 'Keel kernel config',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { type: 'string', minLength: 1, default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
        dataDir: { type: 'string', minLength: 1, default: './data' },
        origins: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
        logLevel: { enum: ['debug', 'info', 'warn', 'error', 'silent'], default: 'info' },
        bodyLimitBytes: { type: 'integer', minimum: 1024, default: 10 * 1024 * 1024 },
        jsonDepthLimit: { type: 'integer', minimum: 1, maximum: 256, default: 64 },
        validateResponses: { type: 'boolean', default: false },
        authFailures: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            burst: { type: 'integer', minimum: 1, default: 20 },
            windowMs: { type: 'integer', minimum: 1000, default: 60_000 },
          },
        },
        signin: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            sessionTtlMs: { type: 'integer', minimum: 1000, maximum: 31 * 24 * 3_600_000, default: 8 * 3_600_000 },
            sessionsPerAccount: { type: 'integer', minimum: 1, maximum: 10_000, default: 32 },
            codeTtlMs: { type: 'integer', minimum: 1000, maximum: 3_600_000, default: 120_000 },
            codesPerAccount: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
            secureCookie: { enum: ['auto', 'always', 'never'], default: 'auto' },
          },
        },
        accounts: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            activityLimit: { type: 'integer', minimum: 10, maximum: 100_000, default: 1000 },
            activityCoalesceMs: { type: 'integer', minimum: 0, default: 60_000 },
            preferencesMaxBytes: { type: 'integer', minimum: 256, maximum: 16 * 1024 * 1024, default: 64 * 1024 },
          },
        },
        setupTimeoutMs: { type: 'integer', minimum: 1, default: 30_000 },
        shutdownTimeoutMs: { type: 'integer', minimum: 0, default: 10_000 },
        watchdog: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            enabled: { type: 'boolean', default: true },
            limitS: { type: 'number', exclusiveMinimum: 0, default: 10 },
          },
        },
        live: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            streamsPerAccount: { type: 'integer', minimum: 1, default: 256 },
            socketsPerAccount: { type: 'integer', minimum: 1, default: 64 },
            socketMaxPayloadBytes: { type: 'integer', minimum: 1024, default: 1024 * 1024 },
          },
        },
        http: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            headersTimeoutMs: { type: 'integer', minimum: 100, default: 15_000 },
            requestTimeoutMs: { type: 'integer', minimum: 100, default: 120_000 },
            keepAliveTimeoutMs: { type: 'integer', minimum: 100, default: 5_000 },
            maxConnections: { type: 'integer', minimum: 1, default: 1024 },
            connectionsPerSource: { type: 'integer', minimum: 1, default: 256 },
          },
        },
        processes: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            heartbeatIntervalMs: { type: 'integer', minimum: 100, default: 5_000 },
            staleAfterMs: { type: 'integer', minimum: 200, default: 30_000 },
            sweepAfterMs: { type: 'integer', minimum: 1_000, default: 3_600_000 },
          },
        },
        hostStatus: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: {
            dataScanMaxEntries: { type: 'integer', minimum: 1, default: 20_000 },
            dataScanCacheMs: { type: 'integer', minimum: 0, default: 60_000 },
          },
        },
      },
    },
    plugins: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['use'],
        properties: {
          use: { type: 'string', minLength: 1 },
          prefix: { type: 'string', pattern: '^/' },
          mounts: { type: 'object', additionalProperties: { type: 'string', pattern: '^/' } },
          config: { type: 'object', default: {} },
          enabled: { type: 'boolean', default: true },
        },
      },
    },
  },
} as const;
