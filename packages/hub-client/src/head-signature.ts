// Signed ledger heads: the hub signs, each time it serves a ledger, a statement naming the channel,
// the row count, both chain heads and the time, with an Ed25519 key it holds. Kept with the
// transcript, the signature proves the hub vouched for exactly that history at that time.
// Verification uses WebCrypto's Ed25519 (Node 20, Chromium 137+, Firefox 129+, Safari 17+); where the
// runtime has none (an older browser, or a page outside a secure context, which hides crypto.subtle)
// the verdict is `unsupported`, never `valid`.

import { canonicalText } from './canonical.js';
import type { HeadSignatureVerdict, Ledger, LedgerSigningKey } from './types/ledger.js';

/** The statement format; a new format gets a new name. */
export const HEAD_STATEMENT_FORMAT = 'keel-ledger-head/1';

/** The exact text the hub signs for a ledger's heads (UTF-8 of this string). */
export function headStatement(ledger: { channel: string; count: number; head: string; keel_head?: string | null }, signedAt: string): string {
  return canonicalText({ format: HEAD_STATEMENT_FORMAT, channel: ledger.channel, count: ledger.count, head: ledger.head, keel_head: ledger.keel_head ?? '', signed_at: signedAt }, { floatKeys: [] });
}

/**
 * Checks the ledger's `signature` against `key` (the hub's key, ideally pinned out of band): the
 * statement is rebuilt from the served heads, so a signature over any other history fails.
 */
export async function verifyHeadSignature(ledger: Pick<Ledger, 'channel' | 'count' | 'head' | 'keel_head' | 'signature'>, key: LedgerSigningKey): Promise<HeadSignatureVerdict> {
  const signature = ledger.signature;
  if (!signature || typeof signature.sig !== 'string' || typeof signature.signed_at !== 'string') return 'missing';
  if (signature.alg !== 'Ed25519' || signature.key_id !== key.key_id) return 'invalid';
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) return 'unsupported';
  let publicKey: CryptoKey;
  try {
    publicKey = await subtle.importKey('raw', fromBase64Url(key.public_key), { name: 'Ed25519' }, false, ['verify']);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'NotSupportedError') return 'unsupported';
    return 'invalid';
  }
  try {
    const statement = new TextEncoder().encode(headStatement(ledger, signature.signed_at));
    return (await subtle.verify({ name: 'Ed25519' }, publicKey, fromBase64Url(signature.sig), statement)) ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** Bytes of a base64url (or base64) string; malformed input throws. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const normal = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(normal + '='.repeat((4 - (normal.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
