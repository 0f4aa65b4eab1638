/**
 * The JSON answers of the OpenAI-compatible routes, in OpenAI's shapes: documented in `/openapi.json`
 * and checked in tests (`server.validateResponses`). Streamed answers are event streams, not checked.
 */
import { defineSchema } from '@keel/plugin-sdk';

const tokenCount = { type: 'integer', minimum: 0 } as const;
const finishReason = { enum: ['stop', 'length'] } as const;

const model = {
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: { id: { type: 'string' }, object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
} as const;

const generationHead = { id: { type: 'string' }, created: { type: 'integer' }, model: { type: 'string' }, system_fingerprint: { type: 'null' } } as const;

const usage = {
  type: 'object',
  required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
  properties: { prompt_tokens: tokenCount, completion_tokens: tokenCount, total_tokens: tokenCount },
} as const;

export const modelResponse = defineSchema(model);

export const modelListResponse = defineSchema({
  type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: model } },
});

export const chatCompletionResponse = defineSchema({
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices', 'usage'],
  properties: {
    ...generationHead,
    object: { const: 'chat.completion' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          message: { type: 'object', required: ['role', 'content'], properties: { role: { const: 'assistant' }, content: { type: ['string', 'null'] }, refusal: { type: 'null' } } },
          logprobs: { type: 'null' },
          finish_reason: finishReason,
        },
      },
    },
    usage,
  },
});

export const completionResponse = defineSchema({
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices', 'usage'],
  properties: {
    ...generationHead,
    object: { const: 'text_completion' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'text', 'finish_reason'],
        properties: { index: { type: 'integer' }, text: { type: 'string' }, logprobs: { type: 'null' }, finish_reason: finishReason },
      },
    },
    usage,
  },
});

export const embeddingResponse = defineSchema({
  type: 'object',
  required: ['object', 'data', 'model', 'usage'],
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['object', 'index', 'embedding'],
        // `embedding` is a list of floats, or their little-endian float32 bytes in base64 (`encoding_format: base64`).
        properties: { object: { const: 'embedding' }, index: { type: 'integer' }, embedding: { anyOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }] } },
      },
    },
    model: { type: 'string' },
    usage: { type: 'object', required: ['prompt_tokens', 'total_tokens'], properties: { prompt_tokens: tokenCount, total_tokens: tokenCount } },
  },
});
