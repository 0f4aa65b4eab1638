/**
 * How big a value is as JSON text, measured without serialising it and without walking further
 * than a budget: a limit check costs at most the budget, however large the value has grown.
 */

/** What `jsonSizeWithin` answers for a value nested deeper than its `maxDepth`. */
export const JSON_TOO_DEEP = -1;

/**
 * The size of `value` as JSON text, in bytes, counting each string by its length (exact for ASCII;
 * escapes and multi-byte characters are not counted twice). Stops as soon as the size passes
 * `budget` and then returns a number greater than `budget`, not the full size. Values JSON drops
 * (`undefined`, functions, symbols) count nothing; typed arrays count their bytes. With `maxDepth`,
 * answers JSON_TOO_DEEP when arrays and objects nest deeper (a deep value may be small, but code
 * that walks it recursively, saving it for one, overflows the stack).
 */
export function jsonSizeWithin(value: unknown, budget: number, maxDepth = Number.POSITIVE_INFINITY): number {
  let size = 0;
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const v = pending.pop();
    const depth = depths.pop()!;
    switch (typeof v) {
      case 'string':
        size += v.length + 2;
        break;
      case 'number':
      case 'bigint':
        size += 8;
        break;
      case 'boolean':
        size += 5;
        break;
      case 'object':
        if (v === null) size += 4;
        else if (ArrayBuffer.isView(v)) size += v.byteLength;
        else {
          if (depth + 1 > maxDepth) return JSON_TOO_DEEP;
          if (Array.isArray(v)) {
            size += 2 + v.length;
            for (let i = v.length - 1; i >= 0; i--) {
              pending.push(v[i]);
              depths.push(depth + 1);
            }
          } else {
            size += 2;
            for (const key in v) {
              if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
              size += key.length + 4;
              pending.push((v as Record<string, unknown>)[key]);
              depths.push(depth + 1);
              if (size > budget) return size;
            }
          }
        }
        break;
      default:
        break;
    }
    if (size > budget) return size;
  }
  return size;
}
