/**
 * `stringify_json` as the origin writes it (its `stringify_json` renderer): a value — or the JSON
 * found in a JSON-ish text — as JSON text, beautified with 2 spaces unless `mode`/`indent` say
 * otherwise.
 */
import { pythonJsonDumps } from '../python-text.js';
import { jsonLoads, rawDecode } from './json-decode.js';
import type { Helpers } from './helper.js';
import { literalEval } from './python-literal.js';
import { stripCodeFence } from './parse-json.js';

const MAX_STARTS = 64;

/** The JSON value a JSON-ish text holds (strict, embedded, or a Python literal), or undefined. */
function parseJsonish(text: string): unknown {
  const s = stripCodeFence(text);
  if (!s) return undefined;
  try {
    return jsonLoads(s);
  } catch {
    /* not strict JSON */
  }
  let tried = 0;
  for (let i = 0; i < s.length && tried < MAX_STARTS; i += 1) {
    if (s[i] !== '{' && s[i] !== '[') continue;
    tried += 1;
    try {
      return rawDecode(s, i).value;
    } catch {
      /* the next start */
    }
  }
  try {
    return literalEval(s);
  } catch {
    return undefined;
  }
}

/** `mode` none | beautify | minified (default beautify; legacy `indent` ≤ 0 means minified). */
function stringifyJson(inputs: Record<string, unknown>): string {
  let value = inputs.value === undefined ? inputs.data ?? null : inputs.value;
  let mode = typeof inputs.mode === 'string' ? inputs.mode.trim().toLowerCase() : '';
  const rawIndent = inputs.indent;
  const indent = typeof rawIndent === 'number' && Number.isFinite(rawIndent) ? Math.trunc(rawIndent) : typeof rawIndent === 'string' && /^\s*[-+]?\d+\s*$/.test(rawIndent) ? Number(rawIndent) : null;
  const sortKeys = inputs.sort_keys === true;
  if (!mode) mode = indent !== null && indent <= 0 ? 'minified' : 'beautify';
  if (!['none', 'beautify', 'minified'].includes(mode)) mode = 'beautify';
  if (typeof value === 'string' && value.trim()) {
    const parsed = parseJsonish(value);
    if (parsed !== undefined && parsed !== null) value = parsed;
  }
  if (mode === 'minified') return pythonJsonDumps(value, { ensureAscii: false, sortKeys, separators: [',', ':'] });
  if (mode === 'none') return pythonJsonDumps(value, { ensureAscii: false, sortKeys });
  return pythonJsonDumps(value, { ensureAscii: false, sortKeys, indent: indent !== null && indent > 0 ? indent : 2 });
}

export const stringifyHelpers: Helpers = {
  stringify_json: (i) => stringifyJson(i),
};
