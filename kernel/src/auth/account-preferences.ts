/**
 * Client preferences per account: one JSON object a client (the web UI, the TUI) keeps for its
 * user — theme, layout, time zone — that the kernel stores and bounds but does not interpret.
 */
import type { Database, RootDatabase } from 'lmdb';
import { payloadTooLarge } from '@keel/plugin-sdk';

export interface StoredPreferences {
  preferences: Record<string, unknown>;
  updated_at: string | null;
  updated_by: string | null;
}

export class AccountPreferences {
  private readonly db: Database<string, string>;

  constructor(root: RootDatabase, private readonly now: () => Date, private readonly maxBytes: number) {
    // Kept as JSON text: what is stored is byte for byte what was measured against the limit.
    this.db = root.openDB<string, string>({ name: 'core:account-preferences', encoding: 'string' });
  }

  get(account: string): StoredPreferences {
    const raw = this.db.get(account);
    if (!raw) return { preferences: {}, updated_at: null, updated_by: null };
    return JSON.parse(raw) as StoredPreferences;
  }

  /** Replaces the account's preferences; 413 when their JSON exceeds the limit. */
  async set(account: string, preferences: Record<string, unknown>, by: string): Promise<StoredPreferences> {
    const size = Buffer.byteLength(JSON.stringify(preferences), 'utf8');
    if (size > this.maxBytes) {
      throw payloadTooLarge(`The preferences take ${size} bytes of JSON, more than the ${this.maxBytes} an account may store (server.accounts.preferencesMaxBytes); keep only what the client needs.`, {
        code: 'preferences_too_large',
      });
    }
    const stored: StoredPreferences = { preferences, updated_at: this.now().toISOString(), updated_by: by };
    await this.db.put(account, JSON.stringify(stored));
    return stored;
  }
}
