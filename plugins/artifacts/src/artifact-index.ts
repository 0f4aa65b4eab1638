/**
 * The LMDB index of artifact records: one record per `[account, artifact_id]`, and three secondary
 * indexes kept in the same write transaction (by run, by session, by created time), so every scan
 * stays inside one account's plane and comes out in created order.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import { isSharedWithUser, type ArtifactRecord, type ArtifactStore } from './artifact-record.js';
import { memoryRunIdOf } from './session-memory.js';
import { SearchIndex } from './search/search-index.js';

type IndexKey = [string, ...string[]];

/** The names an artifact holds among its peers (its session's artifacts, else its run's). */
export type NameField = 'alias' | 'path';

/** Whose names a new artifact's must not clash with: its session's, else its run's; null: none. */
export function nameScopeOf(record: { session_id: string | null; run_id: string | null }): string | null {
  if (record.session_id) return `session\u0000${record.session_id}`;
  if (record.run_id) return `run\u0000${record.run_id}`;
  return null;
}

/** A bounded key part for a scope, field and name (names can be longer than an LMDB key may be). */
function nameDigest(scope: string, field: NameField, name: string): string {
  return createHash('sha256').update(`${scope}\u0000${field}\u0000${name}`).digest('base64url');
}

export class ArtifactIndex implements ArtifactStore {
  private readonly records: Database<ArtifactRecord, [string, string]>;
  private readonly byRun: Database<null, IndexKey>;
  private readonly bySession: Database<null, IndexKey>;
  private readonly byCreated: Database<null, IndexKey>;
  /** `[account, created_at, id]` of the artifacts tagged `shared: user` (every session of the owner lists them). */
  private readonly shared: Database<null, IndexKey>;
  /** `[account, memory run id]` → session id, for the hashed memory run ids that cannot be read back. */
  private readonly memoryRuns: Database<string, [string, string]>;
  /** The search rows (search/search-index.ts), kept in the same transactions as the records. */
  readonly search: SearchIndex;
  /** `[account, digest of (scope, field, name), sha256]`: which bytes hold a name among an artifact's peers. */
  private readonly names: Database<null, [string, string, string]>;

  constructor(private readonly storage: PluginStorage) {
    this.records = storage.openDB<ArtifactRecord, [string, string]>('records');
    this.byRun = storage.openDB<null, IndexKey>('by-run');
    this.bySession = storage.openDB<null, IndexKey>('by-session');
    this.byCreated = storage.openDB<null, IndexKey>('by-created');
    this.shared = storage.openDB<null, IndexKey>('shared');
    this.memoryRuns = storage.openDB<string, [string, string]>('memory-runs');
    this.search = new SearchIndex(storage);
    this.names = storage.openDB<null, [string, string, string]>('names');
  }

  /** Rebuilds the search rows from the records when their layout changed (at start). */
  rebuildSearch(): Promise<number> {
    return this.search.rebuildIfStale(this.records);
  }

  /** The session whose memory run id this is, for this account (null when it holds no artifact). */
  sessionOfMemoryRun(account: string, memoryRunId: string): string | null {
    return this.memoryRuns.get([account, memoryRunId]) ?? null;
  }

  /** Whether the account holds any artifact in this session. */
  hasSession(account: string, sessionId: string): boolean {
    for (const _key of this.bySession.getKeys({ ...prefixRange([account, sessionId]), limit: 1 })) return true;
    return false;
  }

  get(account: string, artifactId: string): ArtifactRecord | undefined {
    return this.records.get([account, artifactId]);
  }

  /**
   * Stores a new record and its index rows; resolves once the commit is durable. `make` runs inside
   * the write transaction, which LMDB serialises across every process on the data directory, so
   * what it reads (the names its peers hold) cannot change before its record is written.
   */
  async add(make: () => ArtifactRecord): Promise<ArtifactRecord> {
    return this.storage.transaction(() => {
      const record = make();
      const { account, artifact_id: id, created_at: at } = record;
      this.records.put([account, id], record);
      this.byCreated.put([account, at, id], null);
      this.search.put(record);
      if (isSharedWithUser(record)) this.shared.put([account, at, id], null);
      if (record.run_id) this.byRun.put([account, record.run_id, at, id], null);
      if (record.session_id) {
        this.bySession.put([account, record.session_id, at, id], null);
        this.memoryRuns.put([account, memoryRunIdOf(record.session_id)], record.session_id);
      }
      const scope = nameScopeOf(record);
      if (scope) {
        this.names.put([account, nameDigest(scope, 'alias', record.tags.alias ?? record.filename), record.sha256], null);
        if (record.path !== null) this.names.put([account, nameDigest(scope, 'path', record.path), record.sha256], null);
      }
      return record;
    });
  }

  /** The digests of the artifacts holding `name` as their `field` in `scope` (`nameScopeOf`). */
  nameHolders(account: string, scope: string, field: NameField, name: string): Set<string> {
    const digest = nameDigest(scope, field, name);
    const shas = new Set<string>();
    for (const key of this.names.getKeys(prefixRange([account, digest]))) shas.add(key[2]);
    return shas;
  }

  /** Replaces the tags of a record (the index rows do not depend on them). */
  async setTags(account: string, artifactId: string, tags: Record<string, string>): Promise<ArtifactRecord | undefined> {
    let updated: ArtifactRecord | undefined;
    await this.storage.transaction(() => {
      const current = this.records.get([account, artifactId]);
      if (!current) return;
      updated = { ...current, tags };
      this.records.put([account, artifactId], updated);
      this.search.put(updated);
      const key: IndexKey = [account, current.created_at, artifactId];
      if (isSharedWithUser(updated)) this.shared.put(key, null);
      else this.shared.remove(key);
    });
    return updated;
  }

  *scan(account: string, opts: { runId?: string; sessionId?: string } = {}): Iterable<ArtifactRecord> {
    const prefix: IndexKey = opts.runId !== undefined ? [account, opts.runId] : opts.sessionId !== undefined ? [account, opts.sessionId] : [account];
    const db = opts.runId !== undefined ? this.byRun : opts.sessionId !== undefined ? this.bySession : this.byCreated;
    for (const key of db.getKeys(prefixRange(prefix))) {
      const record = this.records.get([account, key[key.length - 1]!]);
      if (record) yield record;
    }
  }

  /** The account's artifacts tagged `shared: user`, in created order. */
  *sharedOf(account: string): Iterable<ArtifactRecord> {
    for (const key of this.shared.getKeys(prefixRange([account]))) {
      const record = this.records.get([account, key[key.length - 1]!]);
      if (record) yield record;
    }
  }
}
