/**
 * The per-channel hash chain (reference: hub-protocol §4). Each row commits to its 15-field payload
 * as stored at insert and to the previous row's hash. The canonical text comes from the client
 * package, so the hub hashes exactly what `@keel/hub-client` recomputes when it verifies a ledger.
 */
import { canonicalText } from '@keel/hub-client/canonical';
import { sha256Hex } from '../ids.js';
import type { StoredMessage } from '../records.js';

/** The hashed payload: booleans as 0/1, `created_at` formatted as a Python float. */
export function chainPayload(m: StoredMessage): Record<string, unknown> {
  return {
    id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind, status: m.status, urgency: m.urgency,
    critical: m.critical ? 1 : 0, downgraded: m.downgraded ? 1 : 0, to: m.to, title: m.title, body: m.body,
    data: m.data, reply_to: m.reply_to, created_at: m.created_at,
  };
}

export function chainHash(prev: string, m: StoredMessage): string {
  return sha256Hex(`${prev}\n${canonicalText(chainPayload(m), { floatKeys: ['created_at'] })}`);
}
