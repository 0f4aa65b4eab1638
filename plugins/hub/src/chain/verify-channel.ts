/**
 * The hub's own verification: recomputes every reference hash from the stored (original) bytes and
 * every Keel link; an erased row, whose bytes are gone, is checked through its Keel link alone.
 */
import type { HubDb } from '../store/hub-db.js';
import { chainHash } from './chain-hash.js';
import { keelLinkHash, storedContentHash } from './keel-commitment.js';

export function verifyChannel(db: HubDb, channel: string): { verified: boolean; broken_at: number | null } {
  let prev = '';
  let prevKeel = '';
  for (const { value: m } of db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
    const erased = typeof m.erased_at === 'number';
    if (!erased && chainHash(prev, m) !== m.hash) return { verified: false, broken_at: m.seq };
    prev = m.hash;
    if (typeof m.keel_hash !== 'string') {
      if (erased) return { verified: false, broken_at: m.seq };
      prevKeel = ''; // a row from before Keel's chain
      continue;
    }
    const content = erased ? m.content_hash ?? '' : storedContentHash(m);
    if (content !== m.content_hash || keelLinkHash(prevKeel, m, content) !== m.keel_hash) return { verified: false, broken_at: m.seq };
    prevKeel = m.keel_hash;
  }
  return { verified: true, broken_at: null };
}
