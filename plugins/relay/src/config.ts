/**
 * The relay's settings (config key `relay`), each with a safe default (reference §7, seed §C.8).
 * Sections: `auth` and `gate` (the bearer gate), `hosted` (the upstream account pool), `cli` (the
 * local command-line model client), `logging` (traffic logs and their retention), `uploads` and
 * `conversations` (local storage), `limits` (request bodies).
 */
import { defineSchemaFor } from '@keel/plugin-sdk';

export interface HostedAccountConfig {
  /** Stable name in logs, status and `?account=`; default `<email local part>-<10 hex of sha256(email or base URL)>`. */
  slug?: string;
  email?: string;
  /** The upstream's OpenAI-style `/v1` root, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** An environment variable holding the key (read at start). */
  apiKeyEnv?: string;
  /** Path under `baseUrl` answering the usage report (reference §1.5 upstream shape); null: the account reports no usage. */
  usagePath?: string | null;
  /** Plan name shown when the usage report gives none. */
  planType?: string;
}

export interface RelayConfig {
  auth: {
    /** Refuse every `/v1/*` call without the relay token (false: open mode, documented as unsafe beyond loopback). */
    requireBearerAuth: boolean;
    /** The token file, relative to the plugin's data folder unless absolute; `RELAY_TOKEN` in the environment wins. */
    tokenFile: string;
    /** Create a 32-byte random token in `tokenFile` at first start when none exists (else the start fails). */
    autoGenerateToken: boolean;
  };
  gate: {
    rateLimitPerMinute: number;
    rateLimitBurst: number;
    concurrentRequestsPerIp: number;
    failedAuthWindowSeconds: number;
    failedAuthMaxAttempts: number;
    failedAuthBlockSeconds: number;
    trustXForwardedFor: boolean;
  };
  hosted: {
    enabled: boolean;
    accounts: HostedAccountConfig[];
    balance: 'balanced' | 'round_robin' | 'ordered';
    modelsCacheTtlSeconds: number;
    extraModels: string[];
    accountCooldownSeconds: number;
    retryAttempts: number;
    retryBackoffSeconds: number[];
    requestTimeoutSeconds: number;
    /** Largest single upstream SSE event, bytes (a larger one fails the call with 502). */
    maxEventBytes: number;
    /** How long one account's usage report is reused before the next probe (refresh and warm-up bypass it). */
    usageCacheSeconds: number;
    /** A longest-window percentage older than this is no routing signal (`balanced` ignores it). */
    usageSignalMaxAgeSeconds: number;
    /** Background usage probing of every account (pools of 2 or more accounts). */
    refreshIntervalSeconds: number;
    /** Longest hold after a 5xx or transport failure (capped by `accountCooldownSeconds`). */
    transientHoldSeconds: number;
    /** Conversations pinned to the account that served them (the oldest pin goes first). */
    maxAffinityPins: number;
    /** Time limit of one usage or catalog call to an upstream account. */
    probeTimeoutSeconds: number;
  };
  cli: {
    enabled: boolean;
    /** argv of the local client; null: this Keel's own `keel prompt` on its default config. */
    command: string[] | null;
    /** Extra model ids (without the prefix) beside the ones the client lists. */
    models: string[];
    timeoutSeconds: number;
    maxConcurrentRequests: number;
    stripApiKeyEnv: boolean;
    maxSchemaBytes: number;
  };
  logging: {
    /** Relative to the plugin's data folder unless absolute. */
    dir: string;
    retentionDays: number;
    maxTotalMb: number;
    maxFileMb: number;
    streamLines: boolean;
    cleanupIntervalSeconds: number;
    /** Records waiting in memory for the disk, MiB; past it new records are dropped (counted in `dropped_records`). */
    maxBufferedMb: number;
    /** Notable records (adaptations, failovers, retries, stream errors, account events) kept in memory for the status page. */
    recentRecords: number;
  };
  uploads: {
    maxUploadBytes: number;
    maxTotalUploadBytes: number;
    maxFiles: number;
  };
  conversations: {
    maxConversations: number;
    /** Items one conversation keeps (the oldest are dropped from the replay past it). */
    maxItems: number;
    maxMetadataBytes: number;
  };
  limits: {
    /** Largest JSON request body, bytes. */
    maxBodyBytes: number;
    /** Deepest nesting of objects and arrays in a JSON request body (text routes). */
    maxJsonDepth: number;
  };
}

export const DEFAULT_RETRY_BACKOFF_SECONDS = [5, 20, 60];

export const relayConfigSchema = defineSchemaFor<RelayConfig>()({
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    auth: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        requireBearerAuth: { type: 'boolean', default: true },
        tokenFile: { type: 'string', minLength: 1, default: 'relay-token' },
        autoGenerateToken: { type: 'boolean', default: true },
      },
    },
    gate: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        rateLimitPerMinute: { type: 'integer', minimum: 1, default: 120 },
        rateLimitBurst: { type: 'integer', minimum: 1, default: 40 },
        concurrentRequestsPerIp: { type: 'integer', minimum: 1, default: 8 },
        failedAuthWindowSeconds: { type: 'integer', minimum: 1, default: 300 },
        failedAuthMaxAttempts: { type: 'integer', minimum: 1, default: 8 },
        failedAuthBlockSeconds: { type: 'integer', minimum: 1, default: 900 },
        trustXForwardedFor: { type: 'boolean', default: false },
      },
    },
    hosted: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        accounts: {
          type: 'array',
          default: [],
          maxItems: 64,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['baseUrl'],
            properties: {
              slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' },
              email: { type: 'string', maxLength: 320 },
              baseUrl: { type: 'string', pattern: '^https?://', maxLength: 2000 },
              apiKey: { type: 'string', maxLength: 4096 },
              apiKeyEnv: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' },
              usagePath: { type: ['string', 'null'], pattern: '^/', maxLength: 500 },
              planType: { type: 'string', maxLength: 100 },
            },
          },
        },
        balance: { type: 'string', enum: ['balanced', 'round_robin', 'ordered'], default: 'balanced' },
        modelsCacheTtlSeconds: { type: 'integer', minimum: 0, default: 300 },
        extraModels: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 200, default: [] },
        accountCooldownSeconds: { type: 'number', minimum: 0.01, maximum: 86400, default: 300 },
        retryAttempts: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
        retryBackoffSeconds: { type: 'array', items: { type: 'number', minimum: 0, maximum: 3600 }, maxItems: 10, default: DEFAULT_RETRY_BACKOFF_SECONDS },
        requestTimeoutSeconds: { type: 'integer', minimum: 1, default: 120 },
        maxEventBytes: { type: 'integer', minimum: 1024, default: 4 * 1024 * 1024 },
        usageCacheSeconds: { type: 'number', minimum: 0, maximum: 86400, default: 60 },
        usageSignalMaxAgeSeconds: { type: 'number', minimum: 1, maximum: 86400, default: 900 },
        refreshIntervalSeconds: { type: 'number', minimum: 1, maximum: 86400, default: 300 },
        transientHoldSeconds: { type: 'number', minimum: 0.01, maximum: 3600, default: 30 },
        maxAffinityPins: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 5000 },
        probeTimeoutSeconds: { type: 'number', minimum: 0.1, maximum: 600, default: 15 },
      },
    },
    cli: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        command: { type: ['array', 'null'], items: { type: 'string', minLength: 1 }, minItems: 1, default: null },
        models: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100, default: [] },
        timeoutSeconds: { type: 'integer', minimum: 1, default: 600 },
        maxConcurrentRequests: { type: 'integer', minimum: 1, default: 2 },
        stripApiKeyEnv: { type: 'boolean', default: true },
        maxSchemaBytes: { type: 'integer', minimum: 1024, default: 200_000 },
      },
    },
    logging: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        dir: { type: 'string', minLength: 1, default: 'logs' },
        retentionDays: { type: 'integer', minimum: 0, maximum: 36500, default: 7 },
        maxTotalMb: { type: 'integer', minimum: 1, maximum: 1048576, default: 1024 },
        maxFileMb: { type: 'integer', minimum: 1, maximum: 10240, default: 50 },
        streamLines: { type: 'boolean', default: false },
        cleanupIntervalSeconds: { type: 'integer', minimum: 1, default: 60 },
        maxBufferedMb: { type: 'integer', minimum: 1, maximum: 4096, default: 64 },
        recentRecords: { type: 'integer', minimum: 0, maximum: 10_000, default: 200 },
      },
    },
    uploads: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxUploadBytes: { type: 'integer', minimum: 1, default: 32 * 1024 * 1024 },
        maxTotalUploadBytes: { type: 'integer', minimum: 1, default: 256 * 1024 * 1024 },
        maxFiles: { type: 'integer', minimum: 1, default: 10_000 },
      },
    },
    conversations: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxConversations: { type: 'integer', minimum: 1, default: 10_000 },
        maxItems: { type: 'integer', minimum: 1, default: 500 },
        maxMetadataBytes: { type: 'integer', minimum: 16, default: 16 * 1024 },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxBodyBytes: { type: 'integer', minimum: 1024, default: 32 * 1024 * 1024 },
        maxJsonDepth: { type: 'integer', minimum: 8, maximum: 1024, default: 128 },
      },
    },
  },
});
