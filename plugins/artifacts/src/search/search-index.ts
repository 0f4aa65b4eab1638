/**
 * The search index: one small row per artifact (`SearchRow`, the normalised fields search reads)
 * under `[account, created_at, artifact_id]`, written in the same transaction as the record. A search
 * is one ordered range read inside the caller's account, newest or oldest first, that filters and
 * counts facets as it goes and reads full records only for the page it answers.
 *
 * The rows are derived data: when the stored layout version differs from this code's (or the index
 * is new next to existing records), they are rebuilt from the records at start.
 */
import type { Database, RangeOptions } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import type { ArtifactRecord } from '../artifact-record.js';
import { searchRowOfRecord, type SearchRow } from './search-row.js';

type RowKey = [string, string, string];

/** Bump when `SearchRow` or its derivation changes: rows are rebuilt at the next start. */
export const SEARCH_LAYOUT_VERSION = 1;
const END = '\uffff';
const VERSION_KEY = 'layout_version';

export class SearchIndex {
  private readonly rows: Database<SearchRow, RowKey>;
  private readonly meta: Database<number, string>;

  constructor(private readonly storage: PluginStorage) {
    this.rows = storage.openDB<SearchRow, RowKey>('search-rows');
    this.meta = storage.openDB<number, string>('search-meta');
  }

  /** Writes the row of a record (call inside the record's write transaction). */
  put(record: ArtifactRecord): void {
    this.rows.put([record.account, record.created_at, record.artifact_id], searchRowOfRecord(record));
  }

  /** Rebuilds every row from the records when the layout changed; answers how many were written. */
  async rebuildIfStale(records: Database<ArtifactRecord, [string, string]>): Promise<number> {
    if (this.meta.get(VERSION_KEY) === SEARCH_LAYOUT_VERSION) return 0;
    let written = 0;
    await this.storage.transaction(() => {
      for (const { key } of this.rows.getRange({})) this.rows.remove(key);
      for (const { value } of records.getRange({})) {
        this.put(value);
        written += 1;
      }
      this.meta.put(VERSION_KEY, SEARCH_LAYOUT_VERSION);
    });
    return written;
  }

  /** The account's rows in creation order (newest first for `desc`), read lazily. */
  rowsOf(account: string, order: 'asc' | 'desc'): Iterable<SearchRow> {
    const range: RangeOptions = order === 'desc' ? { start: [account, END], end: [account], reverse: true } : { start: [account], end: [account, END] };
    return this.rows.getRange(range).map(({ value }) => value);
  }
}
