/**
 * The local client's output in OpenAI shapes (reference §4.7): the result envelope checked for an
 * error (`is_error`, a `subtype` starting with `error`: a failure even on exit 0, never content),
 * usage mapped to prompt/completion/total tokens, `finish_reason` `length` for `max_tokens`, and the
 * chat or completion objects and stream chunks.
 */
import { randomBytes } from 'node:crypto';
import type { TextRoute } from '../contracts.js';
import { providerFailure } from './cli-process.js';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type Envelope = Record<string, unknown>;

/** 502 when the envelope reports an error, with its own text as the message. */
export function checkEnvelope(envelope: Envelope): void {
  const subtype = typeof envelope.subtype === 'string' ? envelope.subtype : '';
  if (envelope.is_error === true || subtype.startsWith('error')) {
    const text = typeof envelope.result === 'string' && envelope.result.trim() ? envelope.result.trim() : `The local client reported an error (${subtype || 'is_error'}).`;
    throw providerFailure(502, 'provider_failure', text);
  }
}

export function usageOf(raw: unknown): OpenAiUsage | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const u = raw as Record<string, unknown>;
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);
  const prompt = count(u.input_tokens);
  const completion = count(u.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

export function finishReasonOf(stopReason: unknown): 'stop' | 'length' {
  return stopReason === 'max_tokens' ? 'length' : 'stop';
}

/** The content a structured call answers: only the enforced JSON, compact; null when there is none. */
export function structuredContent(envelope: Envelope): string | null {
  if (envelope.structured_output !== undefined && envelope.structured_output !== null) return JSON.stringify(envelope.structured_output);
  if (typeof envelope.result === 'string') {
    try {
      return JSON.stringify(JSON.parse(envelope.result));
    } catch {
      return null;
    }
  }
  return null;
}

export const NO_STRUCTURED_OUTPUT = 'The local command-line client returned no schema-conforming output for the requested JSON schema.';

/** Ids and the frame builders of one answer. */
export class OutputShape {
  readonly id: string;
  readonly created = Math.floor(Date.now() / 1000);

  constructor(
    readonly route: TextRoute,
    readonly model: string,
  ) {
    this.id = `${route === 'completions' ? 'cmpl' : 'chatcmpl'}_${randomBytes(12).toString('hex')}`;
  }

  completion(content: string, finishReason: string, usage: OpenAiUsage): Record<string, unknown> {
    if (this.route === 'completions') {
      return { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices: [{ text: content, index: 0, logprobs: null, finish_reason: finishReason }], usage };
    }
    return { id: this.id, object: 'chat.completion', created: this.created, model: this.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }], usage };
  }

  /** One content chunk; the first chat chunk also carries the role. */
  chunk(text: string, first: boolean): Record<string, unknown> {
    if (this.route === 'completions') return this.completionChunk(text, null);
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta: first ? { role: 'assistant', content: text } : { content: text }, finish_reason: null }] };
  }

  finalChunk(finishReason: string): Record<string, unknown> {
    if (this.route === 'completions') return this.completionChunk('', finishReason);
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] };
  }

  usageChunk(usage: OpenAiUsage): Record<string, unknown> {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage };
  }

  private completionChunk(text: string, finishReason: string | null): Record<string, unknown> {
    return { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }] };
  }
}

export function sseFrame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export const SSE_DONE = 'data: [DONE]\n\n';

/** The in-band error after the stream started (reference §2.8): type and code the provider code, no `[DONE]`. */
export function inBandError(message: string, code: string): string {
  return sseFrame({ error: { message, type: code, param: null, code } });
}
