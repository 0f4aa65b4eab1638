/**
 * The reputation board in the unified dialect (seed §2.8, reference §6 LeaderboardReport).
 * Categories are `general` (thumbs on a seat's messages, from the ratings table) and the four
 * agent axes. Counting is raw net: each standing vote is one voice, a category's score is up − down,
 * and the row's score is the sum over categories. At most 50 voices per (rater, target, category,
 * UTC day) are counted, so thumbing a seat's every message cannot farm it. Rows are ordered by
 * score desc, raters desc, target asc. Deleted seats are purged from boards; ratings of retracted
 * messages are gone with the retraction (and skipped here should one remain).
 */
import type { CategoryCell, LeaderboardRow, LeaderboardReport as ServedLeaderboardReport } from '@keel/hub-client';
import type { Hub } from '../hub.js';
import type { VoteStore } from './votes.js';
import { AXES } from './votes.js';
import { prefixRange } from '@keel/plugin-sdk';

export const CATEGORIES = ['general', ...AXES] as const;
export type Category = (typeof CATEGORIES)[number];

/** A row of the unified dialect (the client's type also describes the legacy one). */
export interface BoardRow extends LeaderboardRow {
  score: number;
  votes: { up: number; down: number };
  breakdown: Record<Category, CategoryCell>;
}

export interface LeaderboardReport extends ServedLeaderboardReport {
  categories: Category[];
  leaderboard: BoardRow[];
}

interface Voice {
  channel: string;
  target: string;
  rater: string;
  category: Category;
  value: 1 | -1;
  at: number;
}

const DAILY_CAP = 50;

export class Leaderboard {
  constructor(private readonly hub: Hub, private readonly votes: VoteStore) {}

  /** The board of one channel, or of the whole hub (rows then carry `channels`) when `channel` is null. */
  board(channel: string | null): LeaderboardReport {
    const counted = new Map<string, number>();
    const rows = new Map<string, { cells: Record<Category, { up: number; down: number; raters: Set<string> }>; raters: Set<string>; channels: Set<string> }>();
    for (const v of this.voices(channel).sort((a, b) => a.at - b.at)) {
      const target = this.hub.agents.get(v.target);
      if (!target || target.deleted) continue;
      const capKey = `${v.rater}\u0000${v.target}\u0000${v.category}\u0000${Math.floor(v.at / 86400)}`;
      const n = counted.get(capKey) ?? 0;
      if (n >= DAILY_CAP) continue;
      counted.set(capKey, n + 1);
      let row = rows.get(v.target);
      if (!row) {
        const cells = Object.fromEntries(CATEGORIES.map((c) => [c, { up: 0, down: 0, raters: new Set<string>() }])) as Record<Category, { up: number; down: number; raters: Set<string> }>;
        rows.set(v.target, (row = { cells, raters: new Set(), channels: new Set() }));
      }
      const cell = row.cells[v.category];
      if (v.value > 0) cell.up++;
      else cell.down++;
      cell.raters.add(v.rater);
      row.raters.add(v.rater);
      row.channels.add(v.channel);
    }
    const leaderboard: BoardRow[] = [...rows].map(([target, row]) => {
      const breakdown = Object.fromEntries(CATEGORIES.map((c) => {
        const { up, down, raters } = row.cells[c];
        return [c, { score: up - down, up, down, raters: raters.size }];
      })) as Record<Category, CategoryCell>;
      const cells = Object.values(breakdown);
      const up = cells.reduce((n, c) => n + c.up, 0);
      const down = cells.reduce((n, c) => n + c.down, 0);
      const out: BoardRow = { target, score: up - down, raters: row.raters.size, votes: { up, down }, breakdown };
      if (channel === null) out.channels = row.channels.size;
      return out;
    });
    leaderboard.sort((a, b) => b.score - a.score || b.raters - a.raters || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
    return { channel, categories: [...CATEGORIES], leaderboard };
  }

  private voices(channel: string | null): Voice[] {
    const out: Voice[] = this.votes.all(channel).map((v) => ({ channel: v.channel, target: v.target, rater: v.rater, category: v.axis, value: v.value, at: v.updated_at }));
    const range = channel === null ? {} : prefixRange([channel]);
    for (const { value: r } of this.hub.db.ratings.getRange(range)) {
      const m = this.hub.db.messageById(r.message_id);
      if (!m || m.retracted_at !== null) continue;
      out.push({ channel: r.channel, target: r.target, rater: r.rater, category: 'general', value: r.value, at: r.updated_at });
    }
    return out;
  }
}
