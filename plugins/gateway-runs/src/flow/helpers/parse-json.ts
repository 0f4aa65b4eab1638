/**
 * `parse_json` (reference runtime-nodes §3.8): JSON as models write it — inside a code fence, inside
 * prose, as a Python dict, or a bare scalar — to a JSON value. Also used by `break_object` and by the
 * LLM call when a structured answer came back as text.
 */
import { pythonTruthy } from '../coerce.js';
import { PythonError, pythonStr } from '../python-text.js';
import { jsonLoads, rawDecode } from './json-decode.js';
import { literalEval } from './python-literal.js';
import { isRecord, type Helpers } from './helper.js';

/** How many `{`/`[` positions are tried when the whole text is not JSON. */
const MAX_STARTS = 64;

/** The text without a surrounding code fence: its first line and the last ``` dropped. */
export function stripCodeFence(text: string): string {
  const s = text.trim();
  if (!s.startsWith('```')) return s;
  const newline = s.indexOf('\n');
  if (newline < 0) return s.replace(/^`+|`+$/g, '').trim();
  let body = s.slice(newline + 1);
  const end = body.lastIndexOf('```');
  if (end >= 0) body = body.slice(0, end);
  return body.trim();
}

/** The first JSON object or array in the text, tried from each of its first `{`/`[` positions. */
function firstEmbeddedJson(text: string): unknown {
  let tried = 0;
  for (let i = 0; i < text.length && tried < MAX_STARTS; i += 1) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    tried += 1;
    try {
      return rawDecode(text, i).value;
    } catch {
      /* not a JSON value from here: the next start */
    }
  }
  return null;
}

/**
 * The JSON value in `raw` (an object or array is returned as it is). A scalar becomes `{value}`
 * unless `wrapScalar` is false. Throws `ValueError`s with the origin's sentences.
 */
export function parseJsonText(raw: unknown, wrapScalar = true): unknown {
  let parsed: unknown;
  if (raw !== null && typeof raw === 'object') {
    parsed = raw;
  } else {
    if (raw === null || raw === undefined) throw new PythonError('ValueError', "parse_json requires a non-empty 'text' input.");
    const text = stripCodeFence(pythonStr(raw));
    if (!text) throw new PythonError('ValueError', "parse_json requires a non-empty 'text' input.");
    try {
      parsed = jsonLoads(text);
    } catch {
      parsed = firstEmbeddedJson(text);
    }
    // A JSON `null` counts as nothing parsed, as in the origin (so the text `null` ends in an error).
    if (parsed === null) {
      try {
        parsed = literalEval(text);
      } catch (err) {
        throw new PythonError('ValueError', `Invalid JSON: ${(err as Error).message}`);
      }
    }
  }
  if (wrapScalar && !(Array.isArray(parsed) || isRecord(parsed))) return { value: parsed };
  return parsed;
}

export const jsonHelpers: Helpers = {
  // The hidden `wrap_scalar` pin is read with Python truthiness, as the origin does.
  parse_json: (i) => parseJsonText(i.text, i.wrap_scalar === undefined ? true : pythonTruthy(i.wrap_scalar)),
};

