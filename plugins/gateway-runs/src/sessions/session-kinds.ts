/**
 * Session purpose marks (seed §2.8, §9; reference gateway-surfaces §4.2), kept per account plane in
 * LMDB: a session is a `conversation` unless it is marked `docs` (no mark is ever written for a
 * conversation). A start with `kind: docs`, or any run of Keel's docs-question bundle `docs-qa`,
 * marks its session. The one-time migration `docs_qa_bundle_v1` marks every session that already
 * had a `docs-qa` root run, and records `{at, marked}` so it never runs again.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import type { RunState } from '../runtime/run-state.js';

/** The bundle id of Keel's docs-question bundle (private or catalog: the public id is the same). */
export const DOCS_QA_BUNDLE_ID = 'docs-qa';
export const DOCS_QA_MIGRATION = 'docs_qa_bundle_v1';

export type SessionPurpose = 'conversation' | 'docs';

export interface PurposeMark {
  kind: 'docs';
  marked_at: string;
  /** `tenant:account` of whoever started the marking run; absent for the migration. */
  by?: string;
}

export interface MigrationRecord {
  at: string;
  /** Sessions the migration marked. */
  marked: number;
}

/** What other code asks: is this session of this account a docs session? */
export type IsDocsSession = (account: string, sessionId: string) => boolean;

export class SessionKinds {
  /** `[account, session_id]` → the session's `docs` mark. */
  private readonly marks: Database<PurposeMark, [string, string]>;
  /** Migration name → when it ran and what it marked. */
  private readonly migrations: Database<MigrationRecord, string>;

  constructor(storage: PluginStorage) {
    this.marks = storage.openDB<PurposeMark, [string, string]>('session-kinds');
    this.migrations = storage.openDB<MigrationRecord, string>('session-kinds-migrations');
  }

  purposeOf(account: string, sessionId: string | null): SessionPurpose {
    return sessionId !== null && this.marks.get([account, sessionId]) ? 'docs' : 'conversation';
  }

  /** The account's docs session ids (the walk stops at the first key of another account, as `SessionArchive.archivedOf` does). */
  docsSessionsOf(account: string): string[] {
    const out: string[] = [];
    for (const key of this.marks.getKeys({ start: [account] })) {
      if (key[0] !== account) break;
      out.push(key[1]);
    }
    return out;
  }

  readonly isDocsSession: IsDocsSession = (account, sessionId) => this.purposeOf(account, sessionId) === 'docs';

  /** Whether a new root run marks its session docs: `kind: docs` asked, or the docs-question bundle runs. */
  static marks(run: Pick<RunState, 'kind' | 'bundle_id'>): boolean {
    return run.kind === 'docs' || run.bundle_id === DOCS_QA_BUNDLE_ID;
  }

  /** Marks the session docs (idempotent: the first mark stays). */
  async markDocs(account: string, sessionId: string, by: string): Promise<void> {
    if (this.marks.get([account, sessionId])) return;
    await this.marks.transaction(() => {
      if (!this.marks.get([account, sessionId])) void this.marks.put([account, sessionId], { kind: 'docs', marked_at: new Date().toISOString(), by });
    });
  }

  migration(name: string): MigrationRecord | null {
    return this.migrations.get(name) ?? null;
  }

  /**
   * `docs_qa_bundle_v1`, once: marks every session with a root run of `docs-qa` (matched on the
   * bundle id, never on text), or one started with `kind: docs` before marks existed. `roots` are
   * every root run of every account.
   */
  async migrate(roots: () => Iterable<RunState>): Promise<MigrationRecord> {
    const done = this.migration(DOCS_QA_MIGRATION);
    if (done) return done;
    return this.migrations.transaction(() => {
      const at = new Date().toISOString();
      let marked = 0;
      for (const run of roots()) {
        if (run.parent_run_id !== null || !run.session_id || !SessionKinds.marks(run)) continue;
        if (this.marks.get([run.account, run.session_id])) continue;
        void this.marks.put([run.account, run.session_id], { kind: 'docs', marked_at: at });
        marked++;
      }
      const record = { at, marked };
      void this.migrations.put(DOCS_QA_MIGRATION, record);
      return record;
    });
  }
}
