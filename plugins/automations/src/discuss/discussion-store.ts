/**
 * Discussions in LMDB: one record per discussion, keyed by its root run id (the session is
 * `discussion-session:<run id>`), holding what its later turns are re-stamped with (the automation,
 * the workflow, the read-only mount) and the transcript it was seeded with once; and the later turns
 * of each discussion `(run id, seq)` in the order they started, which replay reads back.
 */
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { LaunchTarget, ReplayMessage } from '@keel/plugin-gateway-runs';

export const DISCUSSION_SESSION_PREFIX = 'discussion-session:';

export interface DiscussionRecord {
  /** The discussion's first run: `uuid5(automation_id, "discuss:<request_id>")`. */
  run_id: string;
  /** `discussion-session:<run_id>`. */
  session_id: string;
  account: string;
  automation_id: string;
  occurrence_index: number;
  request_id: string;
  /** Digest over `occurrence_index` and `prompt`: the same request_id with another request is an identity conflict. */
  request_digest: string;
  /** The prompt as the client sent it. */
  prompt: string;
  /** The prompt as the first run received it (the summary line first when the transcript is empty). */
  first_turn: string;
  /** The workflow of the occurrence discussed (every turn runs it). */
  target: LaunchTarget;
  /** The occurrence's frozen inputs every turn starts from (prompt, context and workspace left out). */
  inputs: Record<string, unknown>;
  /** The one-off workspace layer that mounts the automation's folder read-only; null when the occurrence had no folder. */
  workspace: Record<string, unknown> | null;
  /** The automation's folder as the owner may be told it; null when none. */
  mounted_workspace: string | null;
  /** The seed transcript, oldest first (each message `metadata.discussion_seed: true`). */
  seed: ReplayMessage[];
  created_at: string;
}

/** A turn of a discussion: its first run (seq 0), then each `POST /runs/start` in its session. */
export interface DiscussionTurnRecord {
  run_id: string;
  /** The turn's prompt as the run received it. */
  prompt: string;
  at: string;
  /**
   * What replay needs of the turn once its run ended (kept so a long discussion's replay never reads
   * each run's state again): the answer of a completed run, null for one that is not replayed.
   */
  ended?: { status: string; answer: string | null; ts: string };
}

export type CreateDiscussion = { record: DiscussionRecord; created: boolean };

export class DiscussionStore {
  private readonly records: Database<DiscussionRecord, string>;
  private readonly turns: Database<DiscussionTurnRecord, [string, number]>;

  constructor(private readonly storage: PluginStorage) {
    this.records = storage.openDB<DiscussionRecord, string>('discussions');
    this.turns = storage.openDB<DiscussionTurnRecord, [string, number]>('discussion-turns');
  }

  get(runId: string): DiscussionRecord | undefined {
    return this.records.get(runId);
  }

  /** The account's discussion whose session this is, or undefined (not a discussion session, another account's, or none). */
  bySession(account: string, sessionId: string): DiscussionRecord | undefined {
    if (!sessionId.startsWith(DISCUSSION_SESSION_PREFIX)) return undefined;
    const record = this.records.get(sessionId.slice(DISCUSSION_SESSION_PREFIX.length));
    return record && record.account === account && record.session_id === sessionId ? record : undefined;
  }

  /** Writes the discussion unless one with its run id exists (then answers that one, `created: false`); one transaction. */
  create(record: DiscussionRecord): Promise<CreateDiscussion> {
    return this.storage.transaction(() => {
      const existing = this.records.get(record.run_id);
      if (existing) return { record: existing, created: false };
      void this.records.put(record.run_id, record);
      void this.turns.put([record.run_id, 0], { run_id: record.run_id, prompt: record.first_turn, at: record.created_at });
      return { record, created: true };
    });
  }

  /** Appends a later turn after the newest one; one transaction. */
  addTurn(discussionRunId: string, turn: DiscussionTurnRecord): Promise<void> {
    return this.storage.transaction(() => {
      let last = 0;
      for (const key of this.turns.getKeys({ ...prefixRange([discussionRunId], { reverse: true }), limit: 1 })) last = key[1];
      void this.turns.put([discussionRunId, last + 1], turn);
    });
  }

  /** The turns, newest first (read lazily), each with its key for `settle`. */
  *turnsNewestFirst(discussionRunId: string): Generator<{ key: [string, number]; turn: DiscussionTurnRecord }> {
    for (const { key, value } of this.turns.getRange(prefixRange([discussionRunId], { reverse: true }))) yield { key, turn: value };
  }

  /** Keeps what replay needs of an ended turn (in the background: a lost write is worked out again next time). */
  settle(key: [string, number], turn: DiscussionTurnRecord): void {
    void this.turns.put(key, turn);
  }
}
