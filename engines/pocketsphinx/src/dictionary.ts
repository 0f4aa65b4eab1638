/**
 * The words the pronunciation dictionary knows, each with its phone count (first pronunciation):
 * grammar and keyword words must be among them, and keyword thresholds scale with phones.
 */
import { readFile, stat } from 'node:fs/promises';

const cache = new Map<string, { mtimeMs: number; words: Promise<Map<string, number>> }>();

/** Reads `cmudict`-style lines (`word PHONES`, alternates as `word(2)`) once per file version. */
export async function dictionaryWords(file: string): Promise<Map<string, number>> {
  const { mtimeMs } = await stat(file);
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.words;
  const words = readFile(file, 'utf8').then((text) => {
    const map = new Map<string, number>();
    for (const line of text.split('\n')) {
      const space = line.indexOf(' ');
      if (space <= 0) continue;
      const word = line.slice(0, space).replace(/\(\d+\)$/, '').toLowerCase();
      if (!map.has(word)) map.set(word, line.slice(space + 1).trim().split(/\s+/).length);
    }
    return map;
  });
  cache.set(file, { mtimeMs, words });
  words.catch(() => cache.delete(file));
  return words;
}

export function forgetDictionaries(): void {
  cache.clear();
}
