/** Request schemas of the OpenAI-compatible routes (extra fields OpenAI clients send are allowed and ignored). */
import { defineSchema, type Infer } from '@keel/plugin-sdk';

/**
 * Also accepts null: OpenAI clients send explicit nulls. A plain typed schema becomes `type: [t, 'null']`
 * (keeping its own error messages), anything else `anyOf: [s, {type: 'null'}]`.
 */
const sampling = {
  model: { type: 'string', minLength: 1 },
  stream: { type: 'boolean' },
  stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
  max_tokens: { type: ['integer', 'null'], minimum: 1 },
  temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
  top_p: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 1 },
  seed: { type: ['integer', 'null'] },
  stop: { anyOf: [{ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 4 }] }, { type: 'null' }] },
  n: { type: ['integer', 'null'], minimum: 1, maximum: 1 },
  frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
  presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
  user: { type: 'string' },
} as const;

const wireMessage = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, text: { type: 'string' } } } }] },
    name: { type: 'string' },
  },
} as const;

export const chatCompletionBody = defineSchema({
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    ...sampling,
    messages: { type: 'array', minItems: 1, items: wireMessage },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1 },
    response_format: {
      type: ['object', 'null'],
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object', properties: { name: { type: 'string' }, schema: { type: 'object' }, strict: { anyOf: [{ type: 'boolean' }, { type: 'null' }] } } },
      },
    },
    tools: { type: ['array', 'null'] },
  },
  examples: [{ model: 'local/keel-tiny-chat', messages: [{ role: 'user', content: 'What is the capital of France?' }], temperature: 0 }],
});

export const completionBody = defineSchema({
  type: 'object',
  required: ['model', 'prompt'],
  properties: {
    ...sampling,
    prompt: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
    echo: { type: 'boolean' },
    suffix: { type: ['string', 'null'] },
  },
  examples: [{ model: 'local/keel-tiny-chat', prompt: 'The capital of France is', max_tokens: 16, temperature: 0 }],
});

export const embeddingBody = defineSchema({
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

export type ChatCompletionBody = Infer<typeof chatCompletionBody>;
export type CompletionBody = Infer<typeof completionBody>;
export type EmbeddingBody = Infer<typeof embeddingBody>;
export type WireMessage = ChatCompletionBody['messages'][number];
/** The fields every generation request shares. */
export type SamplingFields = Pick<ChatCompletionBody, keyof typeof sampling>;
