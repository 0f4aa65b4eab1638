/**
 * Lexical matching shared by every search source. Words are runs of letters, marks, digits and
 * `_`; matching is case-insensitive and by prefix (`deploy` finds `deployment`). Snippets are cut
 * by code points so an emoji is never split, and highlights are `[start, length]` in code points of
 * the snippet — what the client indexes with `Array.from(snippet)`.
 */

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
const MAX_TERMS = 16;
const SNIPPET_POINTS = 160;
const LEAD_POINTS = 40;
const MAX_HIGHLIGHTS = 16;

export interface Word {
  /** Code-unit offset in the text. */
  at: number;
  text: string;
  lower: string;
}

export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(WORD)) out.push({ at: m.index, text: m[0], lower: m[0].toLowerCase() });
  return out;
}

/** The distinct lowercase words of a query, at most 16. */
export function queryTerms(q: string): string[] {
  return [...new Set(words(q).map((w) => w.lower))].slice(0, MAX_TERMS);
}

export function matchesTerm(word: Word, term: string): boolean {
  return word.lower.startsWith(term);
}

/**
 * A relevance score for one document: a term in the title weighs three times a term in the body,
 * repeated body hits count up to five, and an exact word beats a prefix. `null` when the document
 * does not match (`all` needs every term, `any` at least one).
 */
export function scoreText(title: string, body: string, terms: string[], mode: 'all' | 'any'): number | null {
  if (!terms.length) return 0;
  const titleWords = words(title);
  const bodyWords = words(body);
  let score = 0;
  let matched = 0;
  for (const term of terms) {
    let inTitle = 0;
    let inBody = 0;
    let exact = false;
    for (const w of titleWords) {
      if (!matchesTerm(w, term)) continue;
      inTitle++;
      exact ||= w.lower === term;
    }
    for (const w of bodyWords) {
      if (!matchesTerm(w, term)) continue;
      inBody++;
      exact ||= w.lower === term;
    }
    if (!inTitle && !inBody) {
      if (mode === 'all') return null;
      continue;
    }
    matched++;
    score += (inTitle ? 3 : 0) + Math.min(inBody, 5) + (exact ? 1 : 0);
  }
  return matched ? score : null;
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * A window of `text` (whitespace folded) around its first matching word, with the matching words
 * highlighted. Without terms (a rated-only listing) it is the start of the text.
 */
export function snippetOf(text: string, terms: string[]): { snippet: string; highlights: Array<[number, number]> } {
  const flat = text.replace(/\s+/g, ' ').trim();
  const points = Array.from(flat);
  let snippet = flat;
  if (points.length > SNIPPET_POINTS) {
    const first = words(flat).find((w) => terms.some((t) => matchesTerm(w, t)));
    const firstPoint = first ? codePoints(flat.slice(0, first.at)) : 0;
    let start = Math.max(0, firstPoint - LEAD_POINTS);
    let end = Math.min(points.length, start + SNIPPET_POINTS);
    if (end === points.length) start = Math.max(0, end - SNIPPET_POINTS);
    // Cut at spaces when one is near, so the window does not start or end mid-word.
    if (start > 0) {
      const space = points.indexOf(' ', start);
      if (space !== -1 && space < start + 20 && space < firstPoint) start = space + 1;
    }
    if (end < points.length) {
      const space = points.lastIndexOf(' ', end);
      if (space > end - 20 && space > firstPoint) end = space;
    }
    snippet = `${start > 0 ? '…' : ''}${points.slice(start, end).join('')}${end < points.length ? '…' : ''}`;
  }
  const highlights: Array<[number, number]> = [];
  for (const w of words(snippet)) {
    if (highlights.length >= MAX_HIGHLIGHTS) break;
    if (terms.some((t) => matchesTerm(w, t))) highlights.push([codePoints(snippet.slice(0, w.at)), codePoints(w.text)]);
  }
  return { snippet, highlights };
}
