/**
 * How deeply a parsed JSON value nests, checked without recursion: code that walks a value
 * recursively (validators, encoders, hashing) overflows the stack on input thousands of levels deep,
 * so bodies and frames deeper than a limit are refused before anything else touches them.
 */

/** True when `value` nests objects or arrays more than `limit` levels deep (`{}` and `[]` are level 1). */
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
