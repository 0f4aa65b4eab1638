/**
 * Agent-level reputation votes (seed §2.8, reference §1.7): one standing vote per (channel, rater,
 * target, axis), +1 or -1 with a short note; a re-PUT revises it. A seat's votes in a channel are
 * withdrawn when it leaves (or is removed from) that channel, inside the same write.
 */
import type { Vote } from '@keel/hub-client';
import type { Database } from 'lmdb';
import type { HubDb } from '../store/hub-db.js';
import { prefixRange } from '@keel/plugin-sdk';

export const AXES = ['trust', 'wisdom', 'thorough', 'helper'] as const;
export type Axis = (typeof AXES)[number];

export function isAxis(value: unknown): value is Axis {
  return typeof value === 'string' && (AXES as readonly string[]).includes(value);
}

/** An agent-level vote, stored and served as is. */
export interface VoteRecord extends Vote {
  axis: Axis;
  value: 1 | -1;
}

type VoteKey = [string, string, string, string];

export class VoteStore {
  /** `[channel, target, rater, axis]` → the standing vote. */
  private readonly votes: Database<VoteRecord, VoteKey>;

  constructor(private readonly db: HubDb) {
    this.votes = db.openDB<VoteRecord, VoteKey>('reputation-votes');
  }

  /** Casts or revises a vote; the first cast's `created_at` is kept. */
  cast(vote: Omit<VoteRecord, 'created_at' | 'updated_at'>, at: number): Promise<VoteRecord> {
    return this.db.transaction(() => {
      const key: VoteKey = [vote.channel, vote.target, vote.rater, vote.axis];
      const row: VoteRecord = { ...vote, created_at: this.votes.get(key)?.created_at ?? at, updated_at: at };
      this.votes.put(key, row);
      return row;
    });
  }

  /** Withdraws the rater's vote on one axis, or on all four when `axis` is null. */
  withdraw(channel: string, target: string, rater: string, axis: Axis | null): Promise<number> {
    return this.db.transaction(() => {
      let removed = 0;
      for (const a of axis ? [axis] : AXES) {
        if (!this.votes.doesExist([channel, target, rater, a])) continue;
        this.votes.remove([channel, target, rater, a]);
        removed++;
      }
      return removed;
    });
  }

  /** Votes on `target` in `channel`, newest update first. */
  on(channel: string, target: string): VoteRecord[] {
    const rows = [...this.votes.getRange(prefixRange([channel, target]))].map((e) => e.value);
    return rows.sort((a, b) => b.updated_at - a.updated_at);
  }

  /** Every vote of one channel, or of the whole hub when `channel` is null. */
  all(channel: string | null): VoteRecord[] {
    const range = channel === null ? {} : prefixRange([channel]);
    return [...this.votes.getRange(range)].map((e) => e.value);
  }

  /** Inside the leave write: drops every vote `rater` cast in `channel`. */
  withdrawAllIn(channel: string, rater: string): void {
    for (const { key, value } of this.votes.getRange(prefixRange([channel]))) {
      if (value.rater === rater) this.votes.remove(key);
    }
  }
}
