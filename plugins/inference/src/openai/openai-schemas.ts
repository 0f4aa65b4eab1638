/** Request schemas of the OpenAI-compatible routes (extra fields OpenAI clients send are allowed and ignored). */
import { schema } from '@keel/plugin-sdk';

export interface ContentPart {
  type: string;
  text?: string;
}

export interface WireMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[] | null;
  name?: string;
}

export interface ResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  json_schema?: { name?: string; schema?: Record<string, unknown>; strict?: boolean };
}

export interface SamplingFields {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  max_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  seed?: number | null;
  stop?: string | string[] | null;
  n?: number | null;
  frequency_penalty?: number | null;
  presence_penalty?: number | null;
  user?: string;
}

export interface ChatCompletionBody extends SamplingFields {
  messages: WireMessage[];
  max_completion_tokens?: number | null;
  response_format?: ResponseFormat | null;
  tools?: unknown[] | null;
}

export interface CompletionBody extends SamplingFields {
  prompt: string | string[];
  echo?: boolean;
  suffix?: string | null;
}

export interface EmbeddingBody {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
}

/** Also accepts null (OpenAI clients send explicit nulls); a plain typed schema keeps its own error messages. */
const nullable = (s: Record<string, unknown>) => (typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { anyOf: [s, { type: 'null' }] });

const sampling = {
  model: { type: 'string', minLength: 1 },
  stream: { type: 'boolean' },
  stream_options: nullable({ type: 'object', properties: { include_usage: { type: 'boolean' } } }),
  max_tokens: nullable({ type: 'integer', minimum: 1 }),
  temperature: nullable({ type: 'number', minimum: 0, maximum: 2 }),
  top_p: nullable({ type: 'number', exclusiveMinimum: 0, maximum: 1 }),
  seed: nullable({ type: 'integer' }),
  stop: nullable({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 4 }] }),
  n: nullable({ type: 'integer', minimum: 1, maximum: 1 }),
  frequency_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
  presence_penalty: nullable({ type: 'number', minimum: -2, maximum: 2 }),
  user: { type: 'string' },
};

export const chatCompletionBody = schema<ChatCompletionBody>({
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    ...sampling,
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['role'],
        properties: {
          role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
          content: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, text: { type: 'string' } } } }] },
          name: { type: 'string' },
        },
      },
    },
    max_completion_tokens: nullable({ type: 'integer', minimum: 1 }),
    response_format: nullable({
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object', properties: { name: { type: 'string' }, schema: { type: 'object' }, strict: { anyOf: [{ type: 'boolean' }, { type: 'null' }] } } },
      },
    }),
    tools: nullable({ type: 'array' }),
  },
  examples: [{ model: 'local/keel-tiny-chat', messages: [{ role: 'user', content: 'What is the capital of France?' }], temperature: 0 }],
});

export const completionBody = schema<CompletionBody>({
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    ...sampling,
    prompt: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
    echo: { type: 'boolean' },
    suffix: nullable({ type: 'string' }),
  },
  examples: [{ model: 'local/keel-tiny-chat', prompt: 'The capital of France is', max_tokens: 16, temperature: 0 }],
});

export const embeddingBody = schema<EmbeddingBody>({
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', minLength: 1 },
    input: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2048 },
        { type: 'array', items: { type: 'integer' }, minItems: 1 },
        { type: 'array', items: { type: 'array', items: { type: 'integer' } }, minItems: 1 },
      ],
    },
    encoding_format: { enum: ['float', 'base64'] },
    dimensions: { type: 'integer', minimum: 1 },
    user: { type: 'string' },
  },
  examples: [{ model: 'local/keel-tiny-chat', input: 'The capital of France is Paris.' }],
});
