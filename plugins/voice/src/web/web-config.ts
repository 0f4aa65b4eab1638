/**
 * The web example's settings (`web` in the voice plugin's config): whether its routes and page are
 * served, how many accounts' choices are remembered, and the OpenAI-shaped LLM endpoints whose model
 * lists `GET /api/llm` shows (only these: a caller names one, never a URL of its own).
 */
import { defineSchemaFor } from '@keel/plugin-sdk';

export interface LlmEndpoint {
  /** An OpenAI-shaped root (`http://127.0.0.1:11434/v1`): its `GET <baseUrl>/models` is listed. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set; never shown. */
  apiKey?: string;
}

export interface WebConfig {
  enabled: boolean;
  /** Accounts whose choices (provider, voice, speed, ...) are remembered at once; the least recently used is forgotten first. */
  maxAccounts: number;
  llm: {
    /** Endpoints by name (`ollama`, `local`, ...). */
    providers: Record<string, LlmEndpoint>;
    /** The name `GET /api/llm` lists when the request names none; null: the first one. */
    defaultProvider: string | null;
    /** How long one listing may take. */
    timeoutMs: number;
    /** The largest listing body read. */
    maxBytes: number;
    /** At most this many model ids are answered. */
    maxModels: number;
  };
}

export const DEFAULT_WEB_CONFIG: WebConfig = {
  enabled: true,
  maxAccounts: 10_000,
  llm: { providers: {}, defaultProvider: null, timeoutMs: 5000, maxBytes: 1024 * 1024, maxModels: 1000 },
};

/** The schema as a literal, to embed as the `web` property of the plugin's config schema. */
export const webConfigJson = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    enabled: { type: 'boolean', default: DEFAULT_WEB_CONFIG.enabled },
    maxAccounts: { type: 'integer', minimum: 1, maximum: 1_000_000, default: DEFAULT_WEB_CONFIG.maxAccounts },
    llm: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        providers: {
          type: 'object',
          default: {},
          maxProperties: 64,
          propertyNames: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$' },
          additionalProperties: {
            type: 'object',
            additionalProperties: false,
            required: ['baseUrl'],
            properties: { baseUrl: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^https?://' }, apiKey: { type: 'string', maxLength: 4096 } },
          },
        },
        defaultProvider: { type: ['string', 'null'], maxLength: 64, default: null },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 60_000, default: DEFAULT_WEB_CONFIG.llm.timeoutMs },
        maxBytes: { type: 'integer', minimum: 1024, maximum: 64 * 1024 * 1024, default: DEFAULT_WEB_CONFIG.llm.maxBytes },
        maxModels: { type: 'integer', minimum: 1, maximum: 100_000, default: DEFAULT_WEB_CONFIG.llm.maxModels },
      },
    },
  },
} as const;

export const webConfigSchema = defineSchemaFor<WebConfig>()(webConfigJson);
