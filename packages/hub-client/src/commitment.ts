// Keel's second, redactable chain beside the reference chain (chain.ts, which stays as the
// reference defines it). Each row commits to its content only through a salted hash:
//
//   content_hash = sha256(canonicalText({salt, status, title, body, data}))
//   keel_hash    = sha256(prev_keel_hash + "\n" + canonicalText({metadata..., hash, content_hash}))
//
// so erasing a row's content (and its salt) leaves a link that still verifies: the metadata, the
// reference `hash` and `content_hash` are kept and served. The salt is random per row and erased
// with the content, so an erased row's `content_hash` cannot confirm a guess of what it said.
// Binding the reference `hash` into the Keel link means a tampered reference hash on an erased row
// (which reference verifiers only link, never recompute) is still caught.

import { canonicalText } from './canonical.js';
import { sha256Hex } from './sha256.js';
import type { KeelVerification, Ledger, LedgerTurn } from './types/ledger.js';

/** The content fields: what erasure removes (a tombstone serves none of them as stored). */
export const CONTENT_FIELDS = ['status', 'title', 'body', 'data'] as const;

/** The metadata fields a Keel link commits to directly (served unchanged on every turn). */
export const KEEL_META_FIELDS = ['id', 'channel', 'seq', 'sender', 'kind', 'urgency', 'critical', 'downgraded', 'to', 'reply_to', 'created_at'] as const;

type TurnLike = Partial<LedgerTurn> | Record<string, unknown>;

/** Canonical text hashed into `content_hash`: the content fields (absent -> null) and the row's salt. */
export function contentText(turn: TurnLike, salt: string): string {
  const source = turn as Record<string, unknown>;
  const payload: Record<string, unknown> = { salt };
  for (const field of CONTENT_FIELDS) payload[field] = source[field] === undefined ? null : source[field];
  return canonicalText(payload, { floatKeys: [] });
}

/** Canonical text of a Keel link: metadata (channel from the ledger), the reference hash and the content hash. */
export function keelLinkText(turn: TurnLike, contentHash: string, channel?: string | null): string {
  const source = turn as Record<string, unknown>;
  const payload: Record<string, unknown> = { content_hash: contentHash, hash: source['hash'] ?? null };
  for (const field of KEEL_META_FIELDS) {
    const value = field === 'channel' ? (channel ?? source['channel']) : source[field];
    payload[field] = value === undefined ? null : value;
  }
  return canonicalText(payload, { floatKeys: ['created_at'] });
}

export function contentHash(turn: TurnLike, salt: string): Promise<string> {
  return sha256Hex(contentText(turn, salt));
}

export function keelHash(prev: string, turn: TurnLike, contentHashHex: string, channel?: string | null): Promise<string> {
  return sha256Hex(`${prev}\n${keelLinkText(turn, contentHashHex, channel)}`);
}

/**
 * Verifies Keel's chain over a served ledger, ignoring the hub's verdict:
 * - no `keel_hash`: legacy (written before the chain existed); breaks it when a Keel link came before; prev resets;
 * - a turn served in full: its `content_hash` is recomputed from the content and `content_salt`;
 * - a retracted or erased turn: its served `content_hash` is taken as is (the content is not served);
 * - every Keel link is recomputed; the first mismatch sets `broken_at`.
 */
export async function verifyKeelLedger(ledger: Pick<Ledger, 'channel' | 'turns'> & { keel_head?: string | null }): Promise<KeelVerification> {
  const turns = Array.isArray(ledger.turns) ? ledger.turns : [];
  let prev = '';
  let computedHead = '';
  let brokenAt: number | null = null;
  let sawLink = false;
  let contentChecked = 0;
  let committedOnly = 0;
  let legacy = 0;
  const erased: number[] = [];
  const breakAt = (seq: number): void => {
    if (brokenAt === null) brokenAt = seq;
  };
  for (const [index, turn] of turns.entries()) {
    const seq = typeof turn.seq === 'number' ? turn.seq : index + 1;
    if (typeof turn.keel_hash !== 'string') {
      legacy += 1;
      if (sawLink) breakAt(seq);
      prev = '';
      continue;
    }
    sawLink = true;
    if (turn.erased === true) erased.push(seq);
    const served = typeof turn.content_hash === 'string' ? turn.content_hash : '';
    let computed: string;
    try {
      if (turn.retracted === true || turn.erased === true) {
        committedOnly += 1;
      } else {
        contentChecked += 1;
        if (typeof turn.content_salt !== 'string' || (await contentHash(turn, turn.content_salt)) !== served) breakAt(seq);
      }
      computed = await keelHash(prev, turn, served, ledger.channel);
    } catch {
      computed = ''; // a turn with no canonical form cannot verify
    }
    if (computed !== turn.keel_hash) breakAt(seq);
    prev = turn.keel_hash;
    computedHead = computed;
  }
  const headMismatch = brokenAt === null && (ledger.keel_head ?? '') !== computedHead;
  return { ok: brokenAt === null && !headMismatch, broken_at: brokenAt, head_mismatch: headMismatch, computed_head: computedHead, content_checked: contentChecked, committed_only: committedOnly, legacy, erased };
}
