/**
 * Read keys: an account mints a key that reads its notes and nothing else (a feed reader, a
 * script), sent as `X-Notes-Key`. The key is shown once; the store keeps only its SHA-256, so a
 * copy of the database reveals no key. `readKeyAuth` is the plugin's own authenticator: the kernel
 * reads the header, throttles a source that keeps sending bad keys, and hands the route the key's
 * owner as its principal.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { defineAuthenticator, type Authenticator, type Clock, type PluginStorage } from '@keel/plugin-sdk';

/** Who a read key stands for: the route's principal. */
export interface ReadKeyHolder {
  account: string;
  key_id: string;
}

interface StoredKey extends ReadKeyHolder {
  created_at: string;
}

export const READ_KEY_HEADER = 'x-notes-key';
const KEY_PREFIX = 'notes_';

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

export class ReadKeys {
  private readonly db;

  constructor(storage: PluginStorage, private readonly clock: Clock) {
    this.db = storage.openDB<StoredKey, string>('read-keys');
  }

  /** A new key for `account`; the secret is in the answer only. */
  async mint(account: string): Promise<ReadKeyHolder & { key: string; created_at: string }> {
    const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    const stored: StoredKey = { account, key_id: randomUUID(), created_at: this.clock.now().toISOString() };
    await this.db.put(digest(key), stored);
    return { ...stored, key };
  }

  holderOf(key: string): ReadKeyHolder | null {
    const stored = this.db.get(digest(key));
    return stored ? { account: stored.account, key_id: stored.key_id } : null;
  }

  /** The authenticator of the routes read keys open. */
  authenticator(): Authenticator<ReadKeyHolder> {
    return defineAuthenticator({
      name: 'notesReadKey',
      scheme: { type: 'apiKey', in: 'header', name: READ_KEY_HEADER, description: 'A notes read key (`notes_...`), minted by `POST /api/notes/read-keys` and shown once.' },
      refusals: { missing: `Send a read key in the ${READ_KEY_HEADER} header (mint one with POST /api/notes/read-keys).`, invalid: 'This read key is not valid; mint a new one with POST /api/notes/read-keys.' },
      authenticate: (key) => (key ? this.holderOf(key) : null),
    });
  }
}
