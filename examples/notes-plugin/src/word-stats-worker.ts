/** Worker-thread module of the `stats` pool: word statistics computed off the main thread. */
export interface WordStats {
  words: number;
  characters: number;
  top_words: Array<{ word: string; count: number }>;
  thread: 'worker';
}

export default function wordStats(text: string): WordStats {
  const counts = new Map<string, number>();
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 5);
  return { words: words.length, characters: [...text].length, top_words: top.map(([word, count]) => ({ word, count })), thread: 'worker' };
}
