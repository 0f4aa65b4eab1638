/**
 * The channel key-value store (reference §1.2): versioned JSON values per channel. Rows with
 * well-known prefixes carry the channel's structure — `channel:meta`, `phase:<key>`, `work:<id>`,
 * `ruling:<slug>`, `decision:<slug>`, `claim:<id>` — and the rules for writing them live beside
 * their readers (see store-rules.ts).
 */
import type { StoreEntry, StoreKeyRow } from '@keel/hub-client';
import { prefixRange, conflict, notFound, payloadTooLarge } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { HubDb } from '../../store/hub-db.js';

export const STORE_VALUE_CAP_BYTES = 256 * 1024;

/** What the store keeps under `[channel, key]`: the served row without its address. */
type StoredValue = Omit<StoreEntry, 'channel' | 'key'>;

export class ChannelStore {
  /** `[channel, key]` → the current value and its version. */
  private readonly rows: Database<StoredValue, [string, string]>;

  constructor(db: HubDb) {
    this.rows = db.openDB('store-rows');
  }

  get(channel: string, key: string): StoreEntry | undefined {
    const row = this.rows.get([channel, key]);
    return row ? { channel, key, ...row } : undefined;
  }

  /** The row, or 404 with the hub's sentence. */
  require(channel: string, key: string): StoreEntry {
    const row = this.get(channel, key);
    if (!row) throw notFound(`key '${key}' not found in '${channel}' store`);
    return row;
  }

  /** The value of a row, or `undefined` when the key was never written. */
  value<T>(channel: string, key: string): T | undefined {
    return this.rows.get([channel, key])?.value as T | undefined;
  }

  /** Rows whose key starts with `prefix`, sorted by key. */
  withPrefix(channel: string, prefix: string): StoreEntry[] {
    const out: StoreEntry[] = [];
    for (const { key, value } of this.rows.getRange(prefixRange([channel, prefix], { partial: true }))) {
      if (key[1].startsWith(prefix)) out.push({ channel, key: key[1], ...value });
    }
    return out;
  }

  /** `GET /store`: every key with its version, sorted; vfs keys (`fs/...`) are never listed. */
  keys(channel: string): StoreKeyRow[] {
    return this.withPrefix(channel, '')
      .filter((r) => !r.key.startsWith('fs/'))
      .map((r) => ({ key: r.key, version: r.version, updated_by: r.updated_by, updated_at: r.updated_at }));
  }

  /** Inside a write: stores a new version (CAS on `expectVersion`, 0 = must not exist). */
  putIn(channel: string, key: string, value: unknown, by: string, at: number, expectVersion: number | null): StoreEntry {
    const size = Buffer.byteLength(JSON.stringify(value) ?? 'null');
    if (size > STORE_VALUE_CAP_BYTES) throw payloadTooLarge(`store value is ${size} bytes; the cap is ${STORE_VALUE_CAP_BYTES} bytes`);
    const current = this.rows.get([channel, key])?.version ?? 0;
    if (expectVersion !== null && expectVersion !== current) throw conflict(`store version conflict: current version is ${current}`);
    const row: StoredValue = { value, version: current + 1, updated_by: by, updated_at: at };
    this.rows.put([channel, key], row);
    return { channel, key, ...row };
  }
}
