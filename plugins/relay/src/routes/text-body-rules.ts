/**
 * The body rules of the three text routes, shared by both runtimes and applied before any lane runs
 * (so before any stream header): JSON reading (reference §1.1), the strip-and-disclose of §2.2, and
 * the loud rejections of seed §C.7 (parameters that would change the answer's meaning are refused,
 * never dropped).
 */
import { badRequest, textExceedsJsonDepth, unprocessable } from '@keel/plugin-sdk';
import type { TextRoute } from '../contracts.js';

/**
 * Removed on every text route and runtime, disclosed in `x-relay-ignored-parameters` in this fixed
 * order (not request order): the upstreams reject sampling fields and honour no output caps.
 */
export const STRIPPED_PARAMETERS = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'max_output_tokens', 'max_completion_tokens', 'max_tokens'] as const;

/** The body as a JSON object: empty is `{}`, invalid JSON and non-objects are 400. */
export function parseJsonBody(raw: Buffer | undefined, maxDepth: number): Record<string, unknown> {
  if (!raw || raw.length === 0) return {};
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  if (textExceedsJsonDepth(text, maxDepth)) {
    throw badRequest(`The JSON body nests objects and arrays more than ${maxDepth} levels deep (the setting limits.maxJsonDepth).`, { code: 'json_too_deep' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('Request body must be valid JSON.', { code: 'invalid_json' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('Request body must be a JSON object.', { code: 'invalid_body' });
  return parsed as Record<string, unknown>;
}

/** Removes the stripped parameters; returns the names that carried a value, in the fixed order. */
export function stripParameters(body: Record<string, unknown>): string[] {
  const ignored: string[] = [];
  for (const name of STRIPPED_PARAMETERS) {
    if (!(name in body)) continue;
    if (body[name] !== null && body[name] !== undefined) ignored.push(name);
    delete body[name];
  }
  return ignored;
}

const present = (value: unknown) => value !== undefined && value !== null;

/** The common rejections of a text route (both runtimes). Returns the model id. */
export function checkTextBody(route: TextRoute, body: Record<string, unknown>): string {
  if (typeof body.model !== 'string' || body.model.trim() === '') throw unprocessable('`model` is required: name the model to use (see `GET /v1/models`).', { code: 'invalid_model', field: 'model' });
  if (present(body.stream) && typeof body.stream !== 'boolean') throw unprocessable('`stream` must be true or false.', { code: 'invalid_type', field: 'stream' });
  if (present(body.messages) && present(body.input)) {
    throw unprocessable('A body carries either `messages` (chat completions) or `input` (Responses), not both.', { code: 'mixed_messages_and_input', field: 'input' });
  }
  const store = body.store;
  if (route === 'responses' ? present(store) && store !== false : store === true) {
    throw unprocessable('The relay keeps no upstream state: it requires `store=false` (or no `store`).', { code: 'unsupported_store', field: 'store' });
  }
  if (route !== 'responses' && present(body.n) && body.n !== 1) {
    throw unprocessable('`n` must be 1: the relay returns one choice per request; send several requests for several answers.', { code: 'unsupported_n', field: 'n' });
  }
  if (route === 'completions') checkCompletions(body);
  if (route === 'chat_completions') checkChat(body);
  if (route === 'responses') checkResponses(body);
  return body.model;
}

function checkCompletions(body: Record<string, unknown>): void {
  const refused = ['best_of', 'echo', 'logprobs', 'suffix'].filter((name) => present(body[name]) && body[name] !== false);
  if (refused.length) {
    const names = refused.map((name) => `\`${name}\``).join(', ');
    throw unprocessable(`${names} ${refused.length === 1 ? 'is' : 'are'} not supported on \`/v1/completions\`; remove ${refused.length === 1 ? 'it' : 'them'}.`, { code: 'unsupported_parameter', field: refused[0] });
  }
  const prompt = body.prompt;
  const valid = typeof prompt === 'string' || (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string');
  if (!valid) throw unprocessable('`prompt` must be a string or a list of exactly one string.', { code: 'invalid_prompt', field: 'prompt' });
}

function checkChat(body: Record<string, unknown>): void {
  const refused = ['audio', 'modalities', 'prediction'].filter((name) => present(body[name]));
  if (refused.length) {
    throw unprocessable(`${refused.map((name) => `\`${name}\``).join(', ')} ${refused.length === 1 ? 'is' : 'are'} not supported by the relay (text answers only); remove ${refused.length === 1 ? 'it' : 'them'}.`, { code: 'unsupported_parameter', field: refused[0] });
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw unprocessable('`messages` must be a non-empty list of messages.', { code: 'invalid_messages', field: 'messages' });
  const openCalls = new Set<string>();
  messages.forEach((message: unknown, i) => {
    if (typeof message !== 'object' || message === null || Array.isArray(message) || typeof (message as { role?: unknown }).role !== 'string') {
      throw unprocessable(`\`messages[${i}]\` must be an object with a \`role\`.`, { code: 'invalid_messages', field: `messages[${i}]` });
    }
    const record = message as Record<string, unknown>;
    if (record.role === 'assistant' && Array.isArray(record.tool_calls)) {
      for (const call of record.tool_calls as Array<{ id?: unknown }>) if (typeof call?.id === 'string') openCalls.add(call.id);
    }
    if (record.role === 'tool') {
      const id = record.tool_call_id;
      if (typeof id !== 'string' || !openCalls.has(id)) {
        throw unprocessable(`\`messages[${i}]\` is a tool output for \`${String(id)}\`, which no earlier assistant message called; send the assistant's tool call before its output.`, { code: 'tool_output_without_call', field: `messages[${i}].tool_call_id` });
      }
      openCalls.delete(id);
    }
  });
  if (present(body.conversation) && typeof body.conversation !== 'string') throw unprocessable('`conversation` must be a conversation id string.', { code: 'invalid_conversation', field: 'conversation' });
}

function checkResponses(body: Record<string, unknown>): void {
  const conversation = body.conversation;
  if (present(conversation) && typeof conversation !== 'string' && !(typeof conversation === 'object' && typeof (conversation as { id?: unknown }).id === 'string')) {
    throw unprocessable('`conversation` must be a conversation id or `{"id": "conv_..."}`.', { code: 'invalid_conversation', field: 'conversation' });
  }
}

/** The local conversation a body names, if any. */
export function conversationOf(body: Record<string, unknown>): string | undefined {
  const conversation = body.conversation;
  if (typeof conversation === 'string' && conversation !== '') return conversation;
  if (typeof conversation === 'object' && conversation !== null && typeof (conversation as { id?: unknown }).id === 'string') return (conversation as { id: string }).id;
  return undefined;
}
