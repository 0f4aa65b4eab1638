/** Span tags (reference §8.2, §8.4): string keys to string values, `kind` reserved, within the settings' bounds. */
import type { MemoryConfig } from './memory-config.js';

/** The caller's tags kept: string → string only, `kind` dropped; too many or too long fails naming the setting. */
export function cleanTags(value: unknown, config: MemoryConfig, effect: string): Record<string, string> {
  const tags: Record<string, string> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return tags;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string' || key === 'kind') continue;
    if (key.length > config.maxTagChars || v.length > config.maxTagChars) throw new Error(`${effect} tag '${key.slice(0, 64)}' is longer than ${config.maxTagChars} characters (the memory plugin's maxTagChars).`);
    tags[key] = v;
  }
  if (Object.keys(tags).length > config.maxTags) throw new Error(`${effect} has ${Object.keys(tags).length} tags; at most ${config.maxTags} (the memory plugin's maxTags).`);
  return tags;
}
