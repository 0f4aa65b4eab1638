// Search arguments and the sectioned report.

import type { RatingTally } from './messages.js';

export interface SearchArgs {
  q?: string;
  channel?: string | string[];
  /** Alias of `channel` (the seed's `channel[]`); sent as repeated `channel`. */
  channels?: string[];
  kind?: string;
  sender?: string;
  ref?: string;
  since?: number;
  until?: number;
  limit?: number;
  cursor?: string | null;
  sort?: 'relevance' | 'recent' | 'votes' | string;
  rated?: 'up' | 'down' | 'any' | string;
  min_votes?: number;
}

export interface SearchHit {
  kind: string;
  ref: string;
  channel: string | null;
  seq: number | null;
  sender: string | null;
  status: string | null;
  created_at: number;
  snippet: string;
  /** `[start, length]` code-point offsets into `snippet`. */
  highlights: Array<[number, number]>;
  title: string;
  thread_hits: number | null;
  ratings: RatingTally | null;
}

export interface SearchSection {
  hits: SearchHit[];
  shown: number;
  total: number;
}

/** Always all six sections. */
export interface SearchReport {
  decisions: SearchSection;
  open_threads: SearchSection;
  work: SearchSection;
  people: SearchSection;
  files: SearchSection;
  messages: SearchSection;
  relaxed: boolean;
  channels_searched: number;
  next_cursor: string | null;
  computed_at: number;
  /** `lexical` | `fused` | `semantic` (open vocabulary). */
  mode_used: string;
  semantic_coverage: number | null;
  notice: string | null;
}
