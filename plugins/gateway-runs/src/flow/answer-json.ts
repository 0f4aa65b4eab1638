/**
 * How a structured `llm_call` reads a model's text answer when no validated object came back
 * (reference runtime-nodes §5.1 "Answer parsing"): the origin's `parse_json` (§3.8). This is the
 * one place the LLM path calls it, so the `parse_json` helper's rules apply here as they change.
 */
import { isRecord } from './effect-requests.js';

export type AnswerParse = { ok: true; data: Record<string, unknown> } | { ok: false; error: string };

/** The answer's JSON object; a scalar or a list comes back wrapped as `{value}`. */
export function parseAnswerJson(text: string): AnswerParse {
  try {
    const value = parseJsonLike(text);
    return { ok: true, data: isRecord(value) ? value : { value } };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** §3.8 steps 3–5 for text: a code fence dropped, strict JSON, else the first of the first 64 `{`/`[` that starts a JSON value. */
function parseJsonLike(raw: string): unknown {
  let text = raw.trim();
  if (text.startsWith('```')) {
    const body = text.slice(text.indexOf('\n') + 1 || text.length);
    const close = body.lastIndexOf('```');
    text = (close >= 0 ? body.slice(0, close) : body).trim();
  }
  if (!text) throw new Error("parse_json requires a non-empty 'text' input.");
  try {
    return JSON.parse(text);
  } catch (strictError) {
    let seen = 0;
    for (let i = 0; i < text.length && seen < 64; i++) {
      if (text[i] !== '{' && text[i] !== '[') continue;
      seen++;
      const value = firstValueAt(text, i);
      if (value !== undefined) return value;
    }
    throw new Error(`Invalid JSON: ${(strictError as Error).message}`);
  }
}

/** The JSON value that starts at `start` (what follows it ignored), or undefined. */
function firstValueAt(text: string, start: number): unknown {
  const open = text[start]!;
  const close = open === '{' ? '}' : ']';
  // Try each matching closer from the nearest on: the shortest prefix that parses is the value.
  for (let end = text.indexOf(close, start); end >= 0; end = text.indexOf(close, end + 1)) {
    try {
      return JSON.parse(text.slice(start, end + 1));
    } catch {
      // a longer candidate
    }
  }
  return undefined;
}
