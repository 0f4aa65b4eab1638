/**
 * The session archive (seed §3, §4.9; reference gateway-surfaces §4.1), kept per account plane in
 * LMDB: which sessions are archived (`{archived_at, archived_by}`), and an append-only history of
 * every archive and unarchive asked for (`changed` says whether it did anything). Archiving deletes
 * nothing: it only takes a conversation out of turn listings.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';

export interface ArchiveMark {
  /** UTC ISO time with `Z`. */
  archived_at: string;
  /** Who archived it, as `tenant:account`. */
  archived_by: string;
}

/** One line of the history: who asked for what, and whether it changed the mark. */
export interface ArchiveEvent {
  event: 'archived' | 'unarchived';
  session_id: string;
  at: string;
  by: string;
  changed: boolean;
}

/** What an archive or unarchive answers (seed §4.9). */
export interface ArchiveAnswer {
  session_id: string;
  archived: boolean;
  archived_at: string | null;
  archived_by: string | null;
  changed: boolean;
}

export class SessionArchive {
  /** `[account, session_id]` → the mark of an archived session (absent: not archived). */
  private readonly marks: Database<ArchiveMark, [string, string]>;
  /** `[account, at, unique]` → an event, in the order they happened. */
  private readonly history: Database<ArchiveEvent, [string, string, string]>;
  private sequence = 0;

  /** `maxHistory` (`limits.maxArchiveHistoryPerAccount`): events kept per account; archiving in a loop must not grow the history without bound. */
  constructor(storage: PluginStorage, private readonly maxHistory: number = 1000) {
    this.marks = storage.openDB<ArchiveMark, [string, string]>('session-archive');
    this.history = storage.openDB<ArchiveEvent, [string, string, string]>('session-archive-history');
  }

  markOf(account: string, sessionId: string): ArchiveMark | null {
    return this.marks.get([account, sessionId]) ?? null;
  }

  /**
   * The account's archived session ids with their marks (`prefixRange`: an end of `[account,
   * '\uffff']` would leave out ids starting with an emoji or with U+FFFF itself).
   */
  archivedOf(account: string): Map<string, ArchiveMark> {
    const out = new Map<string, ArchiveMark>();
    for (const { key, value } of this.marks.getRange(prefixRange([account]))) out.set(key[1], value);
    return out;
  }

  /** Archives the session; a repeat changes nothing and answers the stored mark. */
  archive(account: string, sessionId: string, by: string): Promise<ArchiveAnswer> {
    return this.marks.transaction(() => {
      const stored = this.markOf(account, sessionId);
      const mark = stored ?? { archived_at: new Date().toISOString(), archived_by: by };
      if (!stored) void this.marks.put([account, sessionId], mark);
      this.record(account, { event: 'archived', session_id: sessionId, at: new Date().toISOString(), by, changed: !stored });
      return { session_id: sessionId, archived: true, ...mark, changed: !stored };
    });
  }

  /** Takes the mark away; a session that was not archived answers `changed: false`. */
  unarchive(account: string, sessionId: string, by: string): Promise<ArchiveAnswer> {
    return this.marks.transaction(() => {
      const stored = this.markOf(account, sessionId);
      if (stored) void this.marks.remove([account, sessionId]);
      this.record(account, { event: 'unarchived', session_id: sessionId, at: new Date().toISOString(), by, changed: stored !== null });
      return { session_id: sessionId, archived: false, archived_at: null, archived_by: null, changed: stored !== null };
    });
  }

  /** The account's archive history, oldest first. */
  historyOf(account: string): ArchiveEvent[] {
    return [...this.history.getRange(prefixRange([account]))].map((e) => e.value);
  }

  /** Appends the event (inside the caller's transaction) and drops the account's oldest past `maxHistory`. */
  private record(account: string, event: ArchiveEvent): void {
    // Events of one millisecond keep their order: a sequence before the random part.
    void this.history.put([account, event.at, `${String(++this.sequence).padStart(12, '0')}-${randomUUID()}`], event);
    // Reads inside the transaction see the write above.
    const keys = [...this.history.getKeys(prefixRange([account]))];
    for (const key of keys.slice(0, Math.max(0, keys.length - this.maxHistory))) void this.history.remove(key);
  }
}
