/**
 * What a text request becomes for the local command-line client (reference §4.4–§4.6): the
 * rejections (422 `unsupported_for_provider`, the route named), the effort check, the structured
 * output contract, and the prompt (system text apart, the turns as one transcript). Runs before any
 * process starts, so a refusal costs nothing and is always a real status.
 */
import { unprocessable } from '@keel/plugin-sdk';
import type { TextRoute } from '../contracts.js';

export const CLI_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const SUPPORTED_FORMATS = 'Supported types: text, json_object, json_schema.';
const CLIENT = 'The local command-line client';

const REJECTED: Record<'chat_completions' | 'completions', string[]> = {
  chat_completions: ['tools', 'functions', 'tool_choice', 'function_call', 'conversation', 'store', 'previous_response_id', 'modalities', 'audio', 'prediction', 'parallel_tool_calls'],
  completions: ['best_of', 'echo', 'logprobs', 'suffix', 'conversation', 'store', 'stop', 'response_format'],
};
const PATHS: Record<TextRoute, string> = { responses: '/v1/responses', chat_completions: '/v1/chat/completions', completions: '/v1/completions' };
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

export interface CliPlan {
  prompt: string;
  systemPrompt: string | null;
  effort: string | null;
  /** The compact JSON schema the answer must follow, or null for plain text. */
  schema: string | null;
}

export function planCliCall(body: Record<string, unknown>, route: TextRoute, maxSchemaBytes: number): CliPlan {
  if (route === 'responses') throw refuse(`${CLIENT} supports \`/v1/chat/completions\` and \`/v1/completions\` only.`, 'model');
  const path = PATHS[route];
  for (const field of REJECTED[route]) {
    if (provided(body[field])) throw refuse(`${CLIENT} does not support \`${field}\` on \`${path}\`.`, field);
  }
  if (body.n != null && body.n !== 1) throw refuse(`${CLIENT} answers one choice: \`n\` must be 1 on \`${path}\`.`, 'n');
  const effort = effortOf(body.reasoning_effort, path);
  if (route === 'completions') return { prompt: completionPrompt(body.prompt), systemPrompt: null, effort, schema: null };
  const { prompt, systemPrompt } = chatPrompt(body.messages);
  return { prompt, systemPrompt, effort, schema: schemaOf(body.response_format, maxSchemaBytes) };
}

/** "Provided" means not null, false, `[]` or `{}` (reference §4.4). */
function provided(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function effortOf(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  const effort = typeof value === 'string' ? value.toLowerCase() : null;
  if (effort === null || !CLI_EFFORTS.includes(effort)) {
    throw refuse(`Unsupported \`reasoning_effort\` ${JSON.stringify(value)?.slice(0, 100)} for local command-line client models on \`${path}\`. Supported values: ${CLI_EFFORTS.join(', ')}.`, 'reasoning_effort');
  }
  return effort;
}

function completionPrompt(prompt: unknown): string {
  const text = Array.isArray(prompt) && prompt.length === 1 ? prompt[0] : prompt;
  if (typeof text !== 'string' || text.length === 0) throw refuse(`${CLIENT} takes \`prompt\` as a non-empty string (or an array of one string) on \`/v1/completions\`.`, 'prompt');
  return text;
}

function chatPrompt(messages: unknown): { prompt: string; systemPrompt: string | null } {
  if (!Array.isArray(messages) || messages.length === 0) throw refuse('`messages` must be a non-empty array.', 'messages');
  const system: string[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; text: string }> = [];
  messages.forEach((message: unknown, i) => {
    const m = (typeof message === 'object' && message !== null ? message : {}) as Record<string, unknown>;
    const role = m.role;
    if (role !== 'system' && role !== 'developer' && role !== 'user' && role !== 'assistant') {
      throw refuse(`${CLIENT} takes only system, developer, user and assistant messages on \`/v1/chat/completions\` (messages[${i}] has role ${JSON.stringify(role ?? null)?.slice(0, 60)}).`, `messages[${i}].role`);
    }
    if (role === 'assistant' && provided(m.tool_calls)) throw refuse(`${CLIENT} does not support assistant \`tool_calls\` on \`/v1/chat/completions\`.`, `messages[${i}].tool_calls`);
    const text = textOf(m.content, i);
    if (role === 'system' || role === 'developer') {
      if (text) system.push(text);
    } else turns.push({ role, text });
  });
  if (turns.length === 0) throw refuse(`${CLIENT} needs at least one user or assistant message.`, 'messages');
  const prompt = turns.length === 1 && turns[0]!.role === 'user'
    ? turns[0]!.text
    : `${turns.map((t) => `${t.role === 'user' ? 'Human' : 'Assistant'}: ${t.text}`).join('\n\n')}\n\nAssistant:`;
  return { prompt, systemPrompt: system.length ? system.join('\n\n') : null };
}

function textOf(content: unknown, index: number): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw refuse(`messages[${index}].content must be a string or a list of text parts.`, `messages[${index}].content`);
  return content.map((part: unknown, j) => {
    const p = (typeof part === 'object' && part !== null ? part : {}) as Record<string, unknown>;
    if (typeof p.type !== 'string' || !TEXT_PARTS.has(p.type) || typeof p.text !== 'string') {
      throw refuse(`${CLIENT} is text-only: messages[${index}].content[${j}] of type ${JSON.stringify(p.type ?? null)?.slice(0, 60)} is not supported (text, input_text and output_text parts are).`, `messages[${index}].content[${j}].type`);
    }
    return p.text;
  }).join('');
}

/** `response_format` → the compact schema for `--json-schema`, or null for plain text (§4.6). */
function schemaOf(format: unknown, maxSchemaBytes: number): string | null {
  if (format === undefined || format === null) return null;
  if (typeof format !== 'object' || Array.isArray(format)) throw invalid('`response_format` must be an object.', 'response_format');
  const f = format as Record<string, unknown>;
  if (Object.keys(f).length === 0 || f.type === 'text') return null;
  if (f.type === 'json_object') return '{"type":"object"}';
  if (f.type !== 'json_schema') {
    throw refuse(`${CLIENT} does not support \`response_format\` ${f.type === undefined ? 'without a `type`' : `of type ${JSON.stringify(f.type)?.slice(0, 60)}`}. ${SUPPORTED_FORMATS}`, 'response_format.type');
  }
  const wrapper = f.json_schema;
  if (typeof wrapper !== 'object' || wrapper === null || Array.isArray(wrapper)) throw invalid('`response_format.json_schema` must be an object holding `schema`.', 'response_format.json_schema');
  const schema = (wrapper as Record<string, unknown>).schema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw invalid('`response_format.json_schema.schema` must be a JSON Schema object.', 'response_format.json_schema.schema');
  if (hasNonFinite(schema)) throw invalid('`response_format.json_schema.schema` holds NaN or Infinity, which JSON cannot carry.', 'response_format.json_schema.schema');
  const compact = JSON.stringify(schema);
  const bytes = Buffer.byteLength(compact);
  if (bytes > maxSchemaBytes) {
    throw unprocessable(`The JSON schema is ${bytes} bytes serialised; the local command-line client takes at most ${maxSchemaBytes} bytes (setting cli.maxSchemaBytes).`, { code: 'schema_too_large', field: 'body.response_format.json_schema.schema' });
  }
  return compact;
}

function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(hasNonFinite);
  return false;
}

function refuse(message: string, field: string) {
  return unprocessable(message, { code: 'unsupported_for_provider', field: `body.${field}` });
}

function invalid(message: string, field: string) {
  return unprocessable(message, { code: 'invalid_request_error', field: `body.${field}` });
}
