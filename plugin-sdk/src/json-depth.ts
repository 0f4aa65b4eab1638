/**
 * JSON nesting depth, measured on the text before it is parsed. `JSON.parse` itself copes with deep
 * nesting, but everything that walks the parsed value afterwards (validation, hashing, encoding)
 * recurses and overflows the stack: thousands of nested `[` in a few kilobytes kill the handler.
 * Counting brackets outside strings is one pass over the text, with no recursion.
 */

/**
 * The deepest nesting of arrays and objects in `text` (0 for a scalar). It does not validate the
 * JSON. With `stopAbove`, counting stops as soon as the depth exceeds it (the result is then
 * `stopAbove + 1`), so a huge hostile text costs no more than its first brackets.
 */
export function jsonDepth(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++; // skip the escaped character
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return deepest;
}

/** True when `text` nests arrays and objects deeper than `maxDepth`. */
export function textExceedsJsonDepth(text: string, maxDepth: number): boolean {
  return jsonDepth(text, maxDepth) > maxDepth;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The same limit on a value already parsed (a body a parser produced), walked without recursion:
 * true when `value` nests objects or arrays more than `limit` levels deep (`{}` and `[]` are level 1).
 */
export function exceedsJsonDepth(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
