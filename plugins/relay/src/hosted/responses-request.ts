/**
 * A client's `/v1/responses` body as an upstream chat body (hosted; the upstream protocol has no
 * `/responses`): instructions become a system message, Responses input items become messages
 * (`message` items, `function_call` items as assistant tool calls, `function_call_output` items as
 * tool messages), flat function tools become chat tools, `text.format` becomes `response_format`,
 * `reasoning.effort` becomes `reasoning_effort`. What cannot be carried over is refused (422).
 */
import { unprocessable } from '@keel/plugin-sdk';
import type { FileStore } from '../contracts.js';
import { hostedResponseFormat } from './chat-request.js';
import { expandFile, fileDataUrl, type ChatPart } from './local-files.js';

/** Responses fields the chat upstream cannot honour, refused rather than dropped. */
const UNSUPPORTED_FIELDS: Record<string, string> = {
  previous_response_id: 'The relay keeps no upstream responses; use a local `conversation` (`POST /v1/conversations`) to continue a thread.',
  background: 'Background responses are not supported by the relay; send `stream: true` to receive the answer as it comes.',
  prompt: 'Stored prompt templates are not supported by the relay; send the `instructions` and `input` themselves.',
};

/** The input items of a body: a string is one user message, an object a one-item list. */
export function inputItemsOf(input: unknown): Array<Record<string, unknown>> {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }];
  const list = Array.isArray(input) ? input : typeof input === 'object' ? [input] : null;
  if (!list) throw unprocessable('`input` must be a string, an item object or a list of items.', { code: 'invalid_input', field: 'input' });
  list.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw unprocessable(`\`input[${i}]\` must be an object.`, { code: 'invalid_input', field: `input[${i}]` });
  });
  return list as Array<Record<string, unknown>>;
}

export async function upstreamChatOfResponses(body: Record<string, unknown>, items: Array<Record<string, unknown>>, upstreamModel: string, files: FileStore | undefined): Promise<Record<string, unknown>> {
  for (const [field, why] of Object.entries(UNSUPPORTED_FIELDS)) {
    if (body[field] !== undefined && body[field] !== null && body[field] !== false) throw unprocessable(`\`${field}\` is not supported: ${why}`, { code: 'unsupported_parameter', field });
  }
  const messages: Array<Record<string, unknown>> = [];
  if (typeof body.instructions === 'string' && body.instructions.trim() !== '') messages.push({ role: 'system', content: body.instructions });
  messages.push(...(await messagesOfItems(items, files)));
  const out: Record<string, unknown> = { model: upstreamModel, messages, stream: true, stream_options: { include_usage: true } };
  const tools = chatTools(body.tools);
  if (tools.length) out.tools = tools;
  if (body.tool_choice !== undefined && body.tool_choice !== null) out.tool_choice = chatToolChoice(body.tool_choice);
  if (typeof body.parallel_tool_calls === 'boolean' && tools.length) out.parallel_tool_calls = body.parallel_tool_calls;
  const format = textFormat(body.text);
  if (format) out.response_format = format;
  const reasoning = body.reasoning;
  if (reasoning !== undefined && reasoning !== null) {
    if (typeof reasoning !== 'object' || Array.isArray(reasoning)) throw unprocessable('`reasoning` must be an object such as `{"effort": "low"}`.', { code: 'invalid_reasoning', field: 'reasoning' });
    const effort = (reasoning as Record<string, unknown>).effort;
    if (effort !== undefined && effort !== null) out.reasoning_effort = effort;
  }
  for (const field of ['user', 'service_tier', 'top_logprobs'] as const) if (body[field] !== undefined && body[field] !== null) out[field] = body[field];
  return out;
}

/** `text.format` as a chat `response_format` (`text` sends none). */
function textFormat(text: unknown): Record<string, unknown> | undefined {
  if (text === undefined || text === null) return undefined;
  if (typeof text !== 'object' || Array.isArray(text)) throw unprocessable('`text` must be an object such as `{"format": {"type": "text"}}`.', { code: 'invalid_text', field: 'text' });
  const format = (text as Record<string, unknown>).format;
  if (format === undefined || format === null) return undefined;
  if (typeof format !== 'object' || Array.isArray(format)) throw unprocessable('`text.format` must be an object with a `type`.', { code: 'invalid_response_format', field: 'text.format' });
  const record = format as Record<string, unknown>;
  // Responses puts the schema fields beside `type`; chat nests them under `json_schema`.
  const asChat = record.type === 'json_schema'
    ? { type: 'json_schema', json_schema: { name: record.name, schema: record.schema, ...(record.strict === undefined ? {} : { strict: record.strict }), ...(record.description === undefined ? {} : { description: record.description }) } }
    : record;
  return hostedResponseFormat(asChat, 'text.format');
}

function chatTools(tools: unknown): Array<Record<string, unknown>> {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw unprocessable('`tools` must be a list.', { code: 'invalid_tools', field: 'tools' });
  return tools.map((tool: unknown, i) => {
    const record = (typeof tool === 'object' && tool !== null ? tool : {}) as Record<string, unknown>;
    if (record.type !== 'function') {
      throw unprocessable(`\`tools[${i}]\` has type \`${String(record.type)}\`; the hosted runtime supports \`function\` tools only.`, { code: 'unsupported_tool', field: `tools[${i}]` });
    }
    const fn = (typeof record.function === 'object' && record.function !== null ? record.function : record) as Record<string, unknown>;
    if (typeof fn.name !== 'string' || fn.name === '') throw unprocessable(`\`tools[${i}].name\` must be a non-empty string.`, { code: 'invalid_tools', field: `tools[${i}].name` });
    return {
      type: 'function',
      function: {
        name: fn.name,
        parameters: fn.parameters ?? { type: 'object', properties: {} },
        ...(fn.description === undefined ? {} : { description: fn.description }),
        ...(fn.strict === undefined || fn.strict === null ? {} : { strict: fn.strict }),
      },
    };
  });
}

function chatToolChoice(choice: unknown): unknown {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (typeof choice === 'object' && choice !== null) {
    const record = choice as Record<string, unknown>;
    const name = typeof record.name === 'string' ? record.name : (record.function as Record<string, unknown> | undefined)?.name;
    if (record.type === 'function' && typeof name === 'string') return { type: 'function', function: { name } };
  }
  throw unprocessable('`tool_choice` must be `auto`, `none`, `required` or `{"type": "function", "name": ...}`.', { code: 'invalid_tool_choice', field: 'tool_choice' });
}

/** Input items as chat messages; a `function_call_output` must answer an earlier `function_call`. */
async function messagesOfItems(items: Array<Record<string, unknown>>, files: FileStore | undefined): Promise<Array<Record<string, unknown>>> {
  const messages: Array<Record<string, unknown>> = [];
  const openCalls = new Set<string>();
  for (const [i, item] of items.entries()) {
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      messages.push(await messageOfItem(item, i, files));
    } else if (type === 'function_call') {
      const callId = item.call_id;
      if (typeof callId !== 'string' || callId === '' || typeof item.name !== 'string') {
        throw unprocessable(`\`input[${i}]\` (function_call) needs a \`call_id\` and a \`name\`.`, { code: 'invalid_input', field: `input[${i}]` });
      }
      const call = { id: callId, type: 'function', function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' } };
      const last = messages.at(-1);
      if (last?.role === 'assistant' && (last.tool_calls !== undefined || last.content === null || last.content === '')) {
        ((last.tool_calls ??= []) as unknown[]).push(call);
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: [call] });
      }
      openCalls.add(callId);
    } else if (type === 'function_call_output') {
      const callId = item.call_id;
      if (typeof callId !== 'string' || !openCalls.has(callId)) {
        throw unprocessable(`\`input[${i}]\` is a function_call_output for \`${String(callId)}\`, which no earlier function_call item made; send the assistant's call before its output.`, { code: 'tool_output_without_call', field: `input[${i}].call_id` });
      }
      openCalls.delete(callId);
      messages.push({ role: 'tool', tool_call_id: callId, content: outputText(item.output) });
    } else if (type === 'reasoning') {
      // The model's own reasoning of an earlier turn: the chat protocol has no place for it.
      continue;
    } else {
      throw unprocessable(`\`input[${i}]\` has type \`${String(type)}\`; the relay accepts \`message\`, \`function_call\` and \`function_call_output\` items.`, { code: 'unsupported_input_item', field: `input[${i}]` });
    }
  }
  return messages;
}

async function messageOfItem(item: Record<string, unknown>, i: number, files: FileStore | undefined): Promise<Record<string, unknown>> {
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    throw unprocessable(`\`input[${i}].role\` must be \`user\`, \`assistant\`, \`system\` or \`developer\`.`, { code: 'invalid_input', field: `input[${i}].role` });
  }
  if (typeof item.content === 'string') return { role, content: item.content };
  if (!Array.isArray(item.content)) throw unprocessable(`\`input[${i}].content\` must be a string or a list of content parts.`, { code: 'invalid_input', field: `input[${i}].content` });
  const parts: ChatPart[] = [];
  let refusal: string | null = null;
  for (const [j, raw] of item.content.entries()) {
    const where = `input[${i}].content[${j}]`;
    if (typeof raw !== 'object' || raw === null) throw unprocessable(`\`${where}\` must be an object.`, { code: 'invalid_input', field: where });
    const part = raw as Record<string, unknown>;
    if ((part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') && typeof part.text === 'string') {
      if (part.text !== '') parts.push({ type: 'text', text: part.text });
    } else if (part.type === 'refusal' && role === 'assistant' && typeof part.refusal === 'string') {
      refusal = part.refusal;
    } else if (part.type === 'input_image' && role === 'user') {
      const detail = typeof part.detail === 'string' ? part.detail : undefined;
      if (typeof part.file_id === 'string') parts.push(await expandFile(files, part.file_id, 'image', detail));
      else if (typeof part.image_url === 'string') parts.push({ type: 'image_url', image_url: { url: part.image_url, ...(detail ? { detail } : {}) } });
      else throw unprocessable(`\`${where}\` (input_image) needs an \`image_url\` or a \`file_id\`.`, { code: 'invalid_input', field: where });
    } else if (part.type === 'input_file' && role === 'user') {
      if (typeof part.file_id === 'string') parts.push(await expandFile(files, part.file_id, 'any'));
      else if (typeof part.file_data === 'string') parts.push({ type: 'file', file: { filename: typeof part.filename === 'string' ? part.filename : 'file', file_data: fileDataUrl(part.file_data, part.filename) } });
      else throw unprocessable(`\`${where}\` (input_file) needs a \`file_id\`, or \`file_data\` with a \`filename\`.`, { code: 'invalid_input', field: where });
    } else {
      throw unprocessable(`\`${where}\` has type \`${String(part.type)}\`, which a \`${role}\` message cannot carry here.`, { code: 'unsupported_content', field: where });
    }
  }
  if (role !== 'user') {
    const text = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return refusal !== null ? { role, content: text || null, refusal } : { role, content: text };
  }
  return { role, content: parts };
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((p) => (typeof p === 'object' && p !== null && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  return JSON.stringify(output ?? '');
}
