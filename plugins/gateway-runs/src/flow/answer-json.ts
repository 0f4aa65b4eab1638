/**
 * How a structured `llm_call` reads a model's text answer when no validated object came back
 * (reference runtime-nodes §5.1 "Answer parsing"): the `parse_json` helper (§3.8). This is the
 * one place the LLM path calls it.
 */
import { isRecord } from './effect-requests.js';
import { parseJsonText } from './helpers/parse-json.js';

export type AnswerParse = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

/** The answer's JSON object; a scalar or a list comes back wrapped as `{value}`. */
export function parseAnswerJson(text: string): AnswerParse {
  try {
    const value = parseJsonText(text);
    return { ok: true, data: isRecord(value) ? value : { value } };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
