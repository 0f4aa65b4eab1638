/** Turns OpenAI request fields into engine parameters, refusing what Keel cannot honour with a 400 naming the field. */
import { badRequest } from '@keel/plugin-sdk';
import type { ChatMessage, GenerationParams } from '../providers/provider.js';
import type { ChatCompletionBody, SamplingFields, WireMessage } from './openai-schemas.js';

export function generationParams(body: SamplingFields & { max_completion_tokens?: number | null }): Partial<GenerationParams> {
  const params: Partial<GenerationParams> = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) params.maxTokens = maxTokens;
  if (body.temperature != null) params.temperature = body.temperature;
  if (body.top_p != null) params.topP = body.top_p;
  if (body.seed != null) params.seed = body.seed;
  if (body.stop != null) params.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  if (body.frequency_penalty) params.frequencyPenalty = body.frequency_penalty;
  if (body.presence_penalty) params.presencePenalty = body.presence_penalty;
  return params;
}

export function chatParams(body: ChatCompletionBody): Partial<GenerationParams> {
  const params = generationParams(body);
  if (body.tools?.length) throw badRequest('Tool calls are not supported by this endpoint yet; send the request without tools.', { code: 'unsupported_parameter', field: 'body.tools' });
  const format = body.response_format;
  if (format?.type === 'json_object') params.jsonSchema = { type: 'object' };
  if (format?.type === 'json_schema') {
    if (!format.json_schema?.schema) throw badRequest('response_format.json_schema.schema is required for type json_schema.', { code: 'invalid_request', field: 'body.response_format.json_schema.schema' });
    params.jsonSchema = format.json_schema.schema;
  }
  return params;
}

/** OpenAI messages to engine messages: text content only; `developer` counts as `system`. */
export function chatMessages(messages: WireMessage[]): ChatMessage[] {
  return messages.map((m, i) => {
    if (m.role === 'tool') throw badRequest('Tool messages are not supported by this endpoint yet.', { code: 'unsupported_parameter', field: `body.messages[${i}].role` });
    const role = m.role === 'developer' ? 'system' : m.role;
    return { role, content: textOf(m, i) };
  });
}

function textOf(message: WireMessage, index: number): string {
  if (message.content == null) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part, j) => {
      if (part.type !== 'text') throw badRequest(`Content of type '${part.type}' is not supported; send text parts only.`, { code: 'unsupported_content', field: `body.messages[${index}].content[${j}].type` });
      return part.text ?? '';
    })
    .join('');
}
