/**
 * The search index: per artifact, a small row of scalars (`SearchRow`, the normalised fields search
 * reads) and apart its tags and query text (`SearchText`), both under `[account, created_at,
 * artifact_id]` and written in the same transaction as the record. A search is one ordered range
 * read inside the caller's account, newest or oldest first, that filters and counts facets as it
 * goes; the text is read alongside only when a `tags` or `query` filter needs it, and full records
 * only for the page. The rows use lmdb's shared structures (keys stored once), which makes decoding
 * them several times faster than plain objects.
 *
 * Both are derived data: when the stored layout version differs from this code's (or the index is
 * new next to existing records), they are rebuilt from the records at start.
 */
import type { Database, RangeOptions } from 'lmdb';
import { prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { ArtifactRecord } from '../artifact-record.js';
import { searchRowOfRecord, type SearchRow, type SearchText } from './search-row.js';

type RowKey = [string, string, string];

/** Bump when `SearchRow`/`SearchText` or their derivation changes: they are rebuilt at the next start. */
export const SEARCH_LAYOUT_VERSION = 3;
const VERSION_KEY = 'layout_version';
/** The options the rows are opened with (the benchmark's plain scan opens them the same way). */
export const SEARCH_ROWS_OPTIONS = { sharedStructuresKey: Symbol.for('structures') };

export class SearchIndex {
  private readonly rows: Database<SearchRow, RowKey>;
  private readonly texts: Database<SearchText, RowKey>;
  private readonly meta: Database<number, string>;

  constructor(private readonly storage: PluginStorage) {
    this.rows = storage.openDB<SearchRow, RowKey>('search-rows', SEARCH_ROWS_OPTIONS);
    this.texts = storage.openDB<SearchText, RowKey>('search-text', { encoding: 'string' });
    this.meta = storage.openDB<number, string>('search-meta');
  }

  /** Writes the row and text of a record (call inside the record's write transaction). */
  put(record: ArtifactRecord): void {
    const key: RowKey = [record.account, record.created_at, record.artifact_id];
    const { row, text } = searchRowOfRecord(record);
    this.rows.put(key, row);
    this.texts.put(key, text);
  }

  /** Rebuilds every row from the records when the layout changed; answers how many were written. */
  async rebuildIfStale(records: Database<ArtifactRecord, [string, string]>): Promise<number> {
    if (this.meta.get(VERSION_KEY) === SEARCH_LAYOUT_VERSION) return 0;
    let written = 0;
    await this.storage.transaction(() => {
      for (const key of this.rows.getKeys({})) this.rows.remove(key);
      for (const key of this.texts.getKeys({})) this.texts.remove(key);
      for (const { value } of records.getRange({})) {
        this.put(value);
        written += 1;
      }
      this.meta.put(VERSION_KEY, SEARCH_LAYOUT_VERSION);
    });
    return written;
  }

  /** How many artifacts the account holds (keys counted, no value read). */
  countOf(account: string): number {
    return this.rows.getKeysCount(prefixRange([account]));
  }

  /**
   * The account's rows strictly after `[created_at, id]` in creation order (newest first for
   * `desc`), read lazily: the range starts at that key, so a cursor page never reads what it skips.
   */
  *rowsAfter(account: string, order: 'asc' | 'desc', after: { created_at: string; id: string }): Iterable<SearchRow> {
    const from: RowKey = [account, after.created_at, after.id];
    const range: RangeOptions = order === 'desc' ? { ...prefixRange([account], { reverse: true }), start: from } : { ...prefixRange([account]), start: from };
    for (const { key, value } of this.rows.getRange(range)) {
      if (compareKeys(key, from) === 0) continue;
      yield value;
    }
  }

  /**
   * Calls `visit` with each of the account's rows in creation order (newest first for `desc`); with
   * `withText` each comes with its text, read by a second cursor over the same keys in step. A
   * callback rather than an iterator: the pass allocates nothing per row.
   */
  forEachRow(account: string, order: 'asc' | 'desc', withText: boolean, visit: (row: SearchRow, text: SearchText | null) => void): void {
    const range: RangeOptions = prefixRange([account], { reverse: order === 'desc' });
    if (!withText) {
      for (const { value } of this.rows.getRange(range)) visit(value, null);
      return;
    }
    const texts = this.texts.getRange(range)[Symbol.iterator]();
    let current = texts.next();
    for (const { key, value } of this.rows.getRange(range)) {
      // Written together, the two hold the same keys; a text out of step is looked up instead.
      const before = (other: RowKey) => (order === 'asc' ? compareKeys(other, key) < 0 : compareKeys(other, key) > 0);
      while (!current.done && before(current.value.key)) current = texts.next();
      let text: SearchText | null;
      if (!current.done && compareKeys(current.value.key, key) === 0) {
        text = current.value.value;
        current = texts.next();
      } else {
        text = this.texts.get(key) ?? null;
      }
      visit(value, text);
    }
  }

  /** The account's rows in creation order, read lazily (a page that stops early reads no further). */
  *rowsOf(account: string, order: 'asc' | 'desc'): Iterable<SearchRow> {
    const range: RangeOptions = prefixRange([account], { reverse: order === 'desc' });
    for (const { value } of this.rows.getRange(range)) yield value;
  }
}

function compareKeys(a: RowKey, b: RowKey): number {
  for (let i = 0; i < 3; i += 1) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return 0;
}
