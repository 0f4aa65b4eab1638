/**
 * A run's conversation memory: `vars.context.messages` (reference §2.6). `llm_call` with
 * `include_context` appends each user turn and answer to it, the agent loop keeps its working
 * conversation there, and `compact_memory` replaces its older part with one summary message.
 */
import type { LlmCallPayload } from '../flow/effect-requests.js';

export interface MemoryMessage {
  role: string;
  content: string;
  kind?: string;
  metadata?: Record<string, unknown>;
}

export function memoryOf(vars: Record<string, unknown>): MemoryMessage[] {
  const messages = ((vars.context ?? {}) as { messages?: unknown }).messages;
  return Array.isArray(messages) ? (messages as MemoryMessage[]) : [];
}

/** Replaces the memory with a new list (a new array: never mutates one another object may share). */
export function setMemory(vars: Record<string, unknown>, messages: MemoryMessage[]): void {
  const context = vars.context !== null && typeof vars.context === 'object' ? (vars.context as Record<string, unknown>) : {};
  vars.context = { ...context, messages };
}

/** What a model is sent: role and content only (kinds and metadata stay in memory). */
export function forModel(messages: MemoryMessage[]): Array<{ role: string; content: string }> {
  return messages.map((m) => ({ role: String(m.role), content: String(m.content ?? '') }));
}

/** After an `llm_call` with `include_context`: the user turn and the answer (its text, else its `data` as 2-space JSON) join the memory. */
export function appendLlmTurn(vars: Record<string, unknown>, nodeId: string, payload: LlmCallPayload, result: Record<string, unknown>): void {
  const answer = typeof result.content === 'string' ? result.content : result.data !== null && result.data !== undefined ? JSON.stringify(result.data, null, 2) : '';
  const sent = payload.messages ?? [];
  const last = sent[sent.length - 1];
  const prompt = payload.prompt ?? (last?.role === 'user' ? last.content : '');
  const metadata = { kind: 'llm_turn', node_id: nodeId };
  setMemory(vars, [...memoryOf(vars), { role: 'user', content: prompt, metadata }, { role: 'assistant', content: answer, metadata }]);
}

/**
 * How many messages at the head of the memory are instructions a compaction keeps as they are:
 * leading system messages that are not themselves summaries of earlier compactions.
 */
export function pinnedInstructions(messages: MemoryMessage[]): number {
  let n = 0;
  while (n < messages.length && messages[n]!.role === 'system' && messages[n]!.kind !== 'memory_summary') n++;
  return n;
}
