// The per-channel hash chain (hub-protocol reference §4): the 15-key payload of a turn, its hash
// `sha256(prev + "\n" + canonicalText(payload))`, and the client-side ledger verification that
// ignores the hub's own verdict and recomputes every link.
//
// A hub computes the insert hash with exactly these functions:
//   const hash = await chainHash(prevHash, canonicalText(chainPayload(storedRow, channel)));
// where `storedRow` carries the values as stored at insert (critical/downgraded as 0/1 integers,
// `to` as a string array, `created_at` as Unix seconds) and `prevHash` is the hash of seq - 1 or "".

import { canonicalText } from './canonical.js';
import { sha256Hex } from './sha256.js';
import type { ChainPayload, Ledger, LedgerTurn, LedgerVerification } from './types/ledger.js';

export { sha256Hex } from './sha256.js';
export type { ChainPayload, Ledger, LedgerTurn, LedgerVerification } from './types/ledger.js';

/** The 15 hashed fields, in the order the reference lists them (canonical text sorts them anyway). */
export const CHAIN_FIELDS = [
  'id', 'channel', 'seq', 'sender', 'kind', 'status', 'urgency', 'critical',
  'downgraded', 'to', 'title', 'body', 'data', 'reply_to', 'created_at',
] as const;

/**
 * The hashed payload of a served (or stored) turn: exactly the 15 chain fields, absent ones as null.
 * `channel` comes from the ledger's top level (turns do not repeat it); when omitted, the turn's own
 * `channel` is used. Values are taken as given: a hub must hash `critical`/`downgraded` as 0/1.
 */
export function chainPayload(turn: Partial<LedgerTurn> | Record<string, unknown>, channel?: string | null): ChainPayload {
  const source = turn as Record<string, unknown>;
  const payload: Record<string, unknown> = {};
  for (const field of CHAIN_FIELDS) {
    const value = field === 'channel' ? (channel ?? source['channel']) : source[field];
    payload[field] = value === undefined ? null : value;
  }
  return payload as unknown as ChainPayload;
}

/** `sha256Hex(prev + "\n" + canonical)`: the hash of one chain link. */
export function chainHash(prev: string, canonical: string): Promise<string> {
  return sha256Hex(`${prev}\n${canonical}`);
}

/** The hash a turn should carry given the previous link (`""` for the first hashed turn). */
export async function turnHash(prev: string, turn: Partial<LedgerTurn> | Record<string, unknown>, channel?: string | null): Promise<string> {
  return chainHash(prev, canonicalText(chainPayload(turn, channel)));
}

/**
 * Recomputes a served ledger (reference §4.4), ignoring its `verified`/`broken_at`:
 * - `hash: null` turn: legacy; breaks the chain (at its seq) when a hashed turn came before; prev resets to "";
 * - `retracted: true` turn: linked, not recomputed (prev = its served hash), counted as redacted;
 * - any other turn: recomputed; the first mismatch sets `broken_at`; prev = the served hash.
 * `head_mismatch`: no break, but the served head differs from the last computed or linked hash.
 */
export async function verifyLedger(ledger: Pick<Ledger, 'channel' | 'turns'> & Partial<Omit<Ledger, 'head'>> & { head?: string | null }): Promise<LedgerVerification> {
  const turns = Array.isArray(ledger.turns) ? ledger.turns : [];
  let prev = '';
  let computedHead = '';
  let brokenAt: number | null = null;
  let sawHashed = false;
  let hashed = 0;
  let legacy = 0;
  let redacted = 0;
  for (const [index, turn] of turns.entries()) {
    const seq = typeof turn.seq === 'number' ? turn.seq : index + 1;
    if (turn.hash === null || turn.hash === undefined) {
      legacy += 1;
      if (sawHashed && brokenAt === null) brokenAt = seq;
      prev = '';
      continue;
    }
    sawHashed = true;
    if (turn.retracted === true) {
      redacted += 1;
      prev = turn.hash;
      computedHead = turn.hash;
      continue;
    }
    let computed: string | null;
    try {
      computed = await turnHash(prev, turn, ledger.channel);
    } catch {
      computed = null; // a turn with no canonical form cannot verify
    }
    hashed += 1;
    if (computed !== turn.hash && brokenAt === null) brokenAt = seq;
    prev = turn.hash;
    computedHead = computed ?? '';
  }
  const head = ledger.head ?? '';
  const headMismatch = brokenAt === null && head !== computedHead;
  return {
    ok: brokenAt === null && !headMismatch,
    broken_at: brokenAt,
    head_mismatch: headMismatch,
    computed_head: computedHead,
    hashed,
    legacy,
    redacted,
  };
}
