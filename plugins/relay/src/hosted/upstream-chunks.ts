/**
 * The upstream chat/completions stream read as items: a chunk (`chat.completion.chunk` or
 * `text_completion` JSON), a failure event (`data: {"error": {...}}`, classified later) or the
 * `[DONE]` terminal. Unparseable data is skipped (reference §2.8).
 */
import type { OpenAiErrorObject } from '../contracts.js';
import { errorObjectOf } from '../upstream/failure-classifier.js';
import type { SseMessage } from '../upstream/sse-messages.js';

export interface ChunkChoice {
  index?: number;
  delta?: { role?: string; content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] };
  text?: string;
  finish_reason?: string | null;
  [field: string]: unknown;
}

export interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface UpstreamChunk {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: ChunkChoice[];
  usage?: UpstreamUsage | null;
  [field: string]: unknown;
}

/** The chat-protocol usage object (OpenAI names). */
export interface UpstreamUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  [field: string]: unknown;
}

export type UpstreamItem =
  /** `data`: the event's JSON text as the upstream sent it (relayed as it is when nothing in it changes). */
  | { kind: 'chunk'; chunk: UpstreamChunk; data: string }
  | { kind: 'failure'; event: string; error: OpenAiErrorObject }
  | { kind: 'done' };

export async function* upstreamItems(events: AsyncIterable<SseMessage>): AsyncGenerator<UpstreamItem> {
  for await (const message of events) {
    const data = message.data.trim();
    if (data === '[DONE]') {
      yield { kind: 'done' };
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
    const record = parsed as Record<string, unknown>;
    if (message.event === 'error' || 'error' in record) {
      const error = errorObjectOf(record) ?? { message: 'The upstream response failed.', type: 'upstream_error', code: null };
      yield { kind: 'failure', event: message.event ?? 'error', error };
      continue;
    }
    yield { kind: 'chunk', chunk: record as UpstreamChunk, data };
  }
}

/**
 * Whether a chunk is model output (reference §2.8, "what counts as the first byte"): text, a refusal,
 * a tool call or a finish. Role-only and usage-only chunks are not.
 */
export function isContent(chunk: UpstreamChunk): boolean {
  return (chunk.choices ?? []).some((choice) =>
    (typeof choice.text === 'string' && choice.text !== '')
    || (typeof choice.delta?.content === 'string' && choice.delta.content !== '')
    || (typeof choice.delta?.refusal === 'string' && choice.delta.refusal !== '')
    || (Array.isArray(choice.delta?.tool_calls) && choice.delta.tool_calls.length > 0)
    || (choice.finish_reason !== null && choice.finish_reason !== undefined));
}
