/**
 * The audit log of policy changes: Keel has no audit facility of its own, so this plugin keeps an
 * append-only log in LMDB (sub-database `workspaces:audit`, keyed by a growing sequence number),
 * written in the same transaction as the change it records and read by admins
 * (`GET /api/gateway/workspace/audit`). Records are never rewritten or removed.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';

export interface AuditRecord {
  ts: string;
  event: 'workspace_policy_changed';
  scope: 'gateway' | 'account' | 'session';
  /** Who changed it (`tenant:name`). */
  actor: string;
  /** The fields the write named (`configured` for a reset). */
  changed: string[];
  /** The account whose layer changed (account and session scopes). */
  account?: string;
  session_id?: string;
}

export class AuditLog {
  private readonly db: Database<AuditRecord, number>;

  constructor(storage: PluginStorage) {
    this.db = storage.openDB<AuditRecord, number>('audit');
  }

  /** Appends inside the caller's write transaction (the sequence is read and written in it, so two writers never share a number). */
  appendInTransaction(record: AuditRecord): void {
    let next = 1;
    for (const key of this.db.getKeys({ reverse: true, limit: 1 })) next = Number(key) + 1;
    void this.db.put(next, record);
  }

  /** Records after sequence `after`, oldest first, at most `limit`. */
  page(after: number, limit: number): { records: Array<AuditRecord & { seq: number }>; next_after: number | null } {
    const records: Array<AuditRecord & { seq: number }> = [];
    for (const { key, value } of this.db.getRange({ start: after + 1, limit: limit + 1 })) records.push({ seq: Number(key), ...value });
    const more = records.length > limit;
    if (more) records.length = limit;
    return { records, next_after: more ? records[records.length - 1]!.seq : null };
  }
}
