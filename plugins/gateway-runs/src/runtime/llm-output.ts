/**
 * What bounds an `llm_call`'s output and how its answer is read (reference runtime-nodes §5.1):
 * every call goes out with a `max_output_tokens` (the node's, else the run's
 * `_limits.max_output_tokens`, else the `llm.defaultMaxOutputTokens` setting), so a model that
 * never stops on its own (a structured call on an engine without a bound) ends; an answer cut at the
 * bound (`finish_reason` `length`) is asked again with a larger bound, 3 attempts in all, then the
 * effect fails with the origin's sentence. A structured call's answer becomes `data`.
 */
import { parseAnswerJson } from '../flow/answer-json.js';
import { isRecord, type LlmCallPayload } from '../flow/effect-requests.js';
import { withOptionalNulls } from '../flow/response-schema.js';

export interface LlmOutputSettings {
  /** The bound of a call whose node and run name none (the origin's "provider default", which a local engine does not have). */
  defaultMaxOutputTokens: number;
  /** The largest bound a truncation retry grows to when the call and the run name no cap. */
  maxOutputTokensCap: number;
}

export const DEFAULT_LLM_OUTPUT: LlmOutputSettings = { defaultMaxOutputTokens: 2048, maxOutputTokensCap: 32_768 };

const TRUNCATED = new Set(['length', 'max_tokens', 'max_output_tokens']);

export interface TruncationPlan {
  /** The bound of each attempt is computed from the previous one; this is the first. */
  first: number;
  cap: number;
  attempts: number;
  retry: boolean;
  allowTruncation: boolean;
}

export function truncationPlan(payload: LlmCallPayload, runLimits: unknown, settings: LlmOutputSettings): TruncationPlan {
  const limits = isRecord(runLimits) ? runLimits : {};
  const fromRun = positive(limits.max_output_tokens);
  const first = positive(payload.params.max_output_tokens) ?? fromRun ?? settings.defaultMaxOutputTokens;
  const payloadCap = positive(payload.max_output_tokens_cap);
  const cap = Math.max(first, payloadCap !== null && payloadCap >= 256 ? payloadCap : fromRun ?? settings.maxOutputTokensCap);
  return {
    first,
    cap,
    attempts: Math.max(1, Math.floor(positive(payload.max_truncation_attempts) ?? 3)),
    retry: payload.retry_on_truncation !== false,
    allowTruncation: payload.allow_truncation === true,
  };
}

/** The bound of the next attempt: double, at least 500 more, never past the cap. */
export function grown(current: number, cap: number): number {
  return Math.min(Math.max(2 * current, current + 500), cap);
}

export function isTruncated(finishReason: string | null | undefined): boolean {
  return TRUNCATED.has(String(finishReason ?? ''));
}

/** The origin's failure once every attempt was cut (a request the same bounds would cut again: never retried). */
export class TruncatedOutputError extends Error {
  readonly code = 'output_truncated';
  constructor(finishReason: string, attempted: number[]) {
    super(`LLM_CALL output was truncated (finish_reason=${finishReason}). Attempted max_output_tokens: [${attempted.join(', ')}]. Increase max_output_tokens/max_out_tokens (or set allow_truncation=true).`);
  }
}

/** `content`, `data` and parse notes of an answer: a structured call's text is read as JSON. */
export function readAnswer(text: string, schema: Record<string, unknown> | undefined): { content: string | null; data: unknown; metadata: Record<string, unknown> } {
  if (!schema) return { content: text, data: null, metadata: {} };
  // A whole-JSON object answer is what a schema-bound model returns: the origin's validated model (`content` null).
  const strict = strictObject(text);
  if (strict) return { content: null, data: withOptionalNulls(schema, strict), metadata: {} };
  if (!text.trim()) return { content: text, data: null, metadata: {} };
  const parsed = parseAnswerJson(text);
  return parsed.ok ? { content: text, data: parsed.data, metadata: {} } : { content: text, data: null, metadata: { _structured_output_parse_error: parsed.error } };
}

function strictObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function positive(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : null;
}
