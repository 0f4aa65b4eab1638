import { defineSchemaFor } from '@keel/plugin-sdk';
import { DEFAULT_MAX_EVENT_CHARS } from './providers/remote-provider.js';
import { DEFAULT_INPUT_LIMITS, type InputLimitsConfig } from './input-limits.js';
import type { DownloadSettings } from './downloads/download-manager.js';

export interface RemoteEndpointConfig {
  /** Provider name (`openai`, `lab`); model ids are `<name>/<model>`. */
  name: string;
  baseUrl: string;
  apiKey?: string;
  /** Name of an environment variable holding the key (kept out of the config file). */
  apiKeyEnv?: string;
  /** Fixed allowlist of model ids; empty means the endpoint's live `/models` catalog. */
  models: string[];
  timeoutMs: number;
  /** Most characters one streamed (SSE) event from the endpoint may hold; beyond, the call fails with 502. */
  maxEventChars: number;
}

export interface LocalModelConfig {
  id: string;
  path: string;
  contextSize?: number;
}

export interface InferenceConfig {
  /** Folders scanned for models: `*.gguf` files (chat, completion, embeddings) and transformers.js folders (embeddings). */
  modelsDirs: string[];
  /** Also scan Keel's bundled models (the tiny default chat model). */
  bundledModels: boolean;
  /** Models named one by one, with an explicit path. */
  models: LocalModelConfig[];
  defaultChatModel: string;
  defaultEmbeddingModel: string;
  /** Model ids that stand for others (`"openai/gpt-5-mini": "local/keel-tiny-chat"`), so flows naming absent models run here. */
  aliases: Record<string, string>;
  llama: { threads: number; contextSize: number; poolThreads: number };
  onnx: { threads: number; poolThreads: number; batchSize: number };
  generation: { temperature: number };
  endpoints: RemoteEndpointConfig[];
  openaiApi: { enabled: boolean; logSize: number };
  catalogTtlMs: number;
  /** Most prompt characters and messages one request may send (400 naming the limit beyond). */
  inputLimits: InputLimitsConfig;
  /** Bounds of model downloads (`POST /models/download`). */
  downloads: DownloadSettings;
}

const NAME = '^[a-z0-9][a-z0-9._-]{0,63}$';

export const inferenceConfigSchema = defineSchemaFor<InferenceConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    modelsDirs: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
    bundledModels: { type: 'boolean', default: true },
    models: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'path'],
        properties: { id: { type: 'string', pattern: NAME }, path: { type: 'string', minLength: 1 }, contextSize: { type: 'integer', minimum: 64 } },
      },
    },
    defaultChatModel: { type: 'string', minLength: 1, default: 'local/keel-tiny-chat' },
    aliases: { type: 'object', additionalProperties: { type: 'string', minLength: 1 }, default: {} },
    defaultEmbeddingModel: { type: 'string', minLength: 1, default: 'local/keel-tiny-chat' },
    llama: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        threads: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
        contextSize: { type: 'integer', minimum: 64, default: 4096 },
        poolThreads: { type: 'integer', minimum: 1, maximum: 16, default: 1 },
      },
    },
    onnx: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        threads: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
        poolThreads: { type: 'integer', minimum: 1, maximum: 16, default: 1 },
        batchSize: { type: 'integer', minimum: 1, maximum: 1024, default: 32 },
      },
    },
    generation: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { temperature: { type: 'number', minimum: 0, maximum: 2, default: 0.7 } },
    },
    endpoints: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'baseUrl'],
        properties: {
          name: { type: 'string', pattern: NAME, not: { enum: ['local'] } },
          baseUrl: { type: 'string', pattern: '^https?://' },
          apiKey: { type: 'string' },
          apiKeyEnv: { type: 'string' },
          models: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
          timeoutMs: { type: 'integer', minimum: 100, default: 120_000 },
          maxEventChars: { type: 'integer', minimum: 1024, default: DEFAULT_MAX_EVENT_CHARS },
        },
      },
    },
    openaiApi: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { enabled: { type: 'boolean', default: true }, logSize: { type: 'integer', minimum: 0, maximum: 100_000, default: 200 } },
    },
    catalogTtlMs: { type: 'integer', minimum: 0, default: 60_000 },
    inputLimits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxPromptChars: { type: 'integer', minimum: 1, default: DEFAULT_INPUT_LIMITS.maxPromptChars },
        maxMessages: { type: 'integer', minimum: 1, default: DEFAULT_INPUT_LIMITS.maxMessages },
      },
    },
    downloads: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxBytes: { type: 'integer', minimum: 1, default: 16 * 1024 ** 3 },
        maxJsonBytes: { type: 'integer', minimum: 1, default: 64 * 1024 ** 2 },
        maxConcurrent: { type: 'integer', minimum: 1, maximum: 16, default: 2 },
        maxQueued: { type: 'integer', minimum: 0, maximum: 1000, default: 20 },
        idleTimeoutMs: { type: 'integer', minimum: 100, default: 60_000 },
        maxDurationMs: { type: 'integer', minimum: 1000, default: 6 * 3600_000 },
        maxRetries: { type: 'integer', minimum: 0, maximum: 100, default: 5 },
        keepFinished: { type: 'integer', minimum: 0, maximum: 10_000, default: 200 },
      },
    },
  },
});
