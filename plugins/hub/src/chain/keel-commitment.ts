/**
 * Keel's second, redactable chain (hub-client `commitment.ts` defines it): a salted hash of the
 * row's content and a link over its metadata, reference hash and content hash. The hub hashes the
 * same canonical text the client recomputes; erasing a row keeps both commitments and drops the salt.
 */
import { contentText, keelLinkText } from '@keel/hub-client/commitment';
import { sha256Hex } from '../ids.js';
import type { StoredMessage } from '../records.js';
import { randomPool } from '../random-pool.js';

const SALT_BYTES = 16;

/** Fills `content_salt`, `content_hash` and `keel_hash` of a row whose reference `hash` is set. */
export function commitContent(m: StoredMessage, prevKeelHash: string): void {
  m.content_salt = randomPool.take(SALT_BYTES).toString('hex');
  m.content_hash = sha256Hex(contentText(m, m.content_salt));
  m.keel_hash = keelLinkHash(prevKeelHash, m, m.content_hash);
}

export function keelLinkHash(prev: string, m: StoredMessage, contentHash: string): string {
  return sha256Hex(`${prev}\n${keelLinkText(chainMeta(m), contentHash)}`);
}

/** Recomputes a row's content hash from its stored content, or null when the content was erased. */
export function storedContentHash(m: StoredMessage): string | null {
  return typeof m.content_salt === 'string' ? sha256Hex(contentText(m, m.content_salt)) : null;
}

/** The metadata as the chain hashes it: booleans as 0/1 (the values served on every turn). */
function chainMeta(m: StoredMessage): Record<string, unknown> {
  return { ...m, critical: m.critical ? 1 : 0, downgraded: m.downgraded ? 1 : 0 };
}
