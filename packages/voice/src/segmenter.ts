/**
 * Text segmentation for streamed speech (reference B.6, seed §8). The first segment is one sentence or
 * clause of at most `firstMaxChars` (60) so audio starts early; later segments pack whole sentences up
 * to `maxChars` (240, or the engine's smaller limit) so the engine gets enough context per call.
 *
 * One algorithm serves both paths: `splitForSpeech` (a complete text) pushes everything into a
 * `SpeechSegmenter`, closes it and takes every segment; the text-stream bridge pushes deltas as they
 * arrive and takes a segment whenever its synthesiser is ready, so sentences that arrived meanwhile are
 * packed together.
 */

export const FIRST_SEGMENT_MAX_CHARS = 60;
export const SEGMENT_MAX_CHARS = 240;

export interface SegmenterOptions {
  /** Limit of the first segment (default 60). */
  firstMaxChars?: number;
  /** Limit of later segments (default 240; the bridge passes min(engine limit, 240)). */
  maxChars?: number;
  /** A boundary counts only once this many characters are buffered (default 1, reference B.6). */
  minChars?: number;
}

const SENTENCE_END = new Set(['.', '!', '?', '。', '！', '？']);
const CLAUSE_END = new Set([',', ';', ':', '，', '；', '：']);
/** Full-width terminators end a sentence even without a following space (CJK text has none). */
const FULL_WIDTH = new Set(['。', '！', '？', '，', '；', '：']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '»', '」', '』']);

type BoundaryKind = 'sentence' | 'clause';

/** Incremental segmenter: `push` text, `take` the next ready segment, `close` at the end of input. */
export class SpeechSegmenter {
  private buffer = '';
  private closed = false;
  private emitted = 0;
  readonly firstMaxChars: number;
  readonly maxChars: number;
  readonly minChars: number;

  constructor(options: SegmenterOptions = {}) {
    this.maxChars = positive(options.maxChars, SEGMENT_MAX_CHARS);
    this.firstMaxChars = Math.min(positive(options.firstMaxChars, FIRST_SEGMENT_MAX_CHARS), this.maxChars);
    this.minChars = Math.max(1, Math.floor(options.minChars ?? 1));
  }

  /** Appends text; answers false once closed. */
  push(delta: string): boolean {
    if (this.closed) return false;
    // Kept collapsed (one space, or one newline where the text had one) so raw length is the
    // segment length and scanning stays within a window of the limit.
    this.buffer = collapse(this.buffer + delta);
    return true;
  }

  /** No more text: the remainder becomes the final segment(s). */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Segments taken so far. */
  get segmentsTaken(): number {
    return this.emitted;
  }

  /** True when nothing is buffered (after close: the segmenter is drained). */
  get isEmpty(): boolean {
    return this.buffer.trim() === '';
  }

  /** The next segment when one is ready, else undefined (wait for more text or for close). */
  take(): string | undefined {
    for (;;) {
      // Leading whitespace never starts a segment.
      this.buffer = this.buffer.replace(/^\s+/, '');
      if (this.buffer === '') return undefined;
      const cut = this.emitted === 0 ? this.firstCut() : this.laterCut();
      if (cut === undefined) return undefined;
      const segment = this.buffer.slice(0, cut).replace(/\s+/g, ' ').trim();
      this.buffer = this.buffer.slice(cut);
      if (segment === '') continue;
      this.emitted++;
      return segment;
    }
  }

  /** First segment: the earliest sentence or clause end within the limit; else a word cut at the limit. */
  private firstCut(): number | undefined {
    const limit = this.firstMaxChars;
    const text = this.buffer;
    if (trimmedLength(text) <= limit) {
      if (this.closed) return text.length;
    }
    const first = boundaries(text, limit, this.closed).find((b) => b.end >= this.minChars);
    if (first) return first.end;
    if (trimmedLength(text) <= limit) return undefined;
    return wordCut(text, limit);
  }

  /** Later segments: as many whole sentences as fit the limit; a longer sentence is cut at a clause or word. */
  private laterCut(): number | undefined {
    const limit = this.maxChars;
    const text = this.buffer;
    if (this.closed && trimmedLength(text) <= limit) return text.length;
    const found = boundaries(text, limit, this.closed);
    const sentences = found.filter((b) => b.kind === 'sentence' && b.end >= this.minChars);
    if (sentences.length > 0) return sentences[sentences.length - 1]!.end;
    // No whole sentence within the limit: wait while the pending text still fits, else cut inside it.
    if (trimmedLength(text) <= limit) return undefined;
    const clauses = found.filter((b) => b.kind === 'clause');
    if (clauses.length > 0) return clauses[clauses.length - 1]!.end;
    return wordCut(text, limit);
  }
}

/** Splits a complete text into speech segments (first ≤ firstMaxChars, later ≤ maxChars). */
export function splitForSpeech(text: string, options: SegmenterOptions = {}): string[] {
  const segmenter = new SpeechSegmenter(options);
  segmenter.push(text);
  segmenter.close();
  const out: string[] = [];
  for (let s = segmenter.take(); s !== undefined; s = segmenter.take()) out.push(s);
  return out;
}

/**
 * Natural boundaries ending within the first `limit` characters, in order: a newline, or a terminator
 * followed by whitespace (or by the end of the text once it is closed; full-width terminators need no
 * space). `end` is the index just after the boundary.
 */
function boundaries(text: string, limit: number, closed: boolean): { end: number; kind: BoundaryKind }[] {
  const out: { end: number; kind: BoundaryKind }[] = [];
  const stop = Math.min(text.length, limit);
  for (let i = 0; i < stop; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      out.push({ end: i + 1, kind: 'sentence' });
      continue;
    }
    const kind: BoundaryKind | undefined = SENTENCE_END.has(ch) ? 'sentence' : CLAUSE_END.has(ch) ? 'clause' : undefined;
    if (!kind) continue;
    // A run of terminators and closing quotes ("Really?!", 'He said "no."') ends where the run ends.
    let j = i + 1;
    while (j < text.length && (SENTENCE_END.has(text[j]!) || CLOSERS.has(text[j]!))) j++;
    const next = text[j];
    const kindOfRun: BoundaryKind = SENTENCE_END.has(text[j - 1]!) || kind === 'sentence' ? 'sentence' : 'clause';
    if (j <= limit && (FULL_WIDTH.has(ch) || (next === undefined ? closed : /\s/.test(next)))) out.push({ end: j, kind: kindOfRun });
    i = j - 1;
  }
  return out;
}

/** The cut within `limit` characters: after the last space, else a hard cut (a word longer than the limit). */
function wordCut(text: string, limit: number): number {
  const head = text.slice(0, limit + 1);
  const space = Math.max(head.lastIndexOf(' '), head.lastIndexOf('\n'));
  if (space > 0) return space;
  let cut = limit;
  const code = text.charCodeAt(cut - 1);
  // Never split a surrogate pair.
  if (code >= 0xd800 && code <= 0xdbff && cut > 1) cut--;
  return cut;
}

function collapse(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/[^\S\n]+/g, ' ').replace(/ ?\n[\s]*/g, '\n');
}

function trimmedLength(text: string): number {
  return text.trimEnd().length;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}
