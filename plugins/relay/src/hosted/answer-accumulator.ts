/**
 * Adds up an upstream chat or completions stream into one answer: the text, a refusal, the tool
 * calls (merged by index, their argument pieces joined), the finish reason and the usage. Used by
 * the non-stream reconstruction (reference §2.7) and by the Responses rebuild.
 */
import type { UpstreamChunk, UpstreamUsage } from './upstream-chunks.js';

export interface AccumulatedToolCall {
  id: string;
  name: string;
  arguments: string;
}

export class AnswerAccumulator {
  id: string | null = null;
  created: number | null = null;
  model: string | null = null;
  systemFingerprint: string | null = null;
  text = '';
  refusal: string | null = null;
  finish: string | null = null;
  usage: UpstreamUsage | null = null;
  readonly toolCalls: AccumulatedToolCall[] = [];
  private readonly callsByIndex = new Map<number, AccumulatedToolCall>();

  /** The tool call with the upstream's `index`, once a piece of it arrived. */
  toolCallAt(index: number): AccumulatedToolCall | undefined {
    return this.callsByIndex.get(index);
  }

  add(chunk: UpstreamChunk): void {
    if (typeof chunk.id === 'string' && this.id === null) this.id = chunk.id;
    if (typeof chunk.created === 'number' && this.created === null) this.created = chunk.created;
    if (typeof chunk.model === 'string' && this.model === null) this.model = chunk.model;
    if (typeof chunk.system_fingerprint === 'string') this.systemFingerprint = chunk.system_fingerprint;
    if (chunk.usage && typeof chunk.usage === 'object') this.usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if (typeof choice.text === 'string') this.text += choice.text;
      const delta = choice.delta;
      if (typeof delta?.content === 'string') this.text += delta.content;
      if (typeof delta?.refusal === 'string') this.refusal = (this.refusal ?? '') + delta.refusal;
      for (const call of delta?.tool_calls ?? []) this.addToolCall(call);
      if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
    }
  }

  /** The tool call a delta belongs to, created at its first piece. */
  addToolCall(call: { index?: number; id?: string; function?: { name?: string; arguments?: string } }): AccumulatedToolCall {
    const index = typeof call.index === 'number' ? call.index : this.toolCalls.length;
    let entry = this.callsByIndex.get(index);
    if (!entry) {
      // An upstream that names no call id gets `call_<n>` (reference §2.3).
      entry = { id: call.id || `call_${this.toolCalls.length}`, name: '', arguments: '' };
      this.callsByIndex.set(index, entry);
      this.toolCalls.push(entry);
    }
    if (typeof call.function?.name === 'string') entry.name += call.function.name;
    if (typeof call.function?.arguments === 'string') entry.arguments += call.function.arguments;
    return entry;
  }
}

/**
 * The usage the client gets on chat and completions: the upstream's chat-protocol object with
 * `total_tokens` filled in when it sent none (the upstream already speaks OpenAI names).
 */
export function chatUsage(usage: UpstreamUsage | null): UpstreamUsage | undefined {
  if (!usage) return undefined;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  return { ...usage, prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.total_tokens ?? prompt + completion };
}

/** The same usage in the Responses names (`input_tokens`, `output_tokens`, details). */
export function responsesUsage(usage: UpstreamUsage | null): Record<string, unknown> | null {
  if (!usage) return null;
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? input + output,
  };
}
