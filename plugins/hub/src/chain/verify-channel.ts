/** The hub's own verification: recomputes every hash from the stored (original) bytes. */
import type { HubDb } from '../store/hub-db.js';
import { chainHash } from './chain-hash.js';

export function verifyChannel(db: HubDb, channel: string): { verified: boolean; broken_at: number | null } {
  let prev = '';
  for (const { value: m } of db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
    if (chainHash(prev, m) !== m.hash) return { verified: false, broken_at: m.seq };
    prev = m.hash;
  }
  return { verified: true, broken_at: null };
}
