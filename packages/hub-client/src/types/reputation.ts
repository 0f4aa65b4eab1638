// Reputation votes and leaderboards.

import type { JsonObject } from './json.js';

export interface Vote {
  channel: string;
  target: string;
  rater: string;
  axis: string;
  value: number;
  note: string;
  created_at: number;
  updated_at: number;
}

export interface CategoryCell {
  up: number;
  down: number;
  raters: number;
  score: number;
}

/** Unified dialect `{target, raters, score, breakdown, votes, channels}` or legacy `{target, raters, total, axes, messages}`. */
export interface LeaderboardRow {
  target: string;
  raters: number;
  score?: number;
  breakdown?: Record<string, CategoryCell>;
  votes?: { up: number; down: number };
  channels?: number;
  total?: number;
  axes?: JsonObject;
  messages?: unknown;
}

export interface LeaderboardReport {
  channel: string | null;
  categories?: string[];
  axes?: string[];
  leaderboard: LeaderboardRow[];
}
