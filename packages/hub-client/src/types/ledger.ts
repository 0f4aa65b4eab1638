// The channel ledger (hash chain) and the client's own verification of it.

import type { JsonObject } from './json.js';

export interface LedgerTurn {
  seq: number;
  id: string;
  sender: string;
  kind: string;
  status: string;
  urgency: string;
  critical: number | boolean;
  downgraded: number | boolean;
  to: string[] | null;
  title: string;
  body: string;
  data: JsonObject | null;
  reply_to: string | null;
  created_at: number;
  /** Null only for pre-ledger legacy rows. */
  hash: string | null;
  retracted?: boolean;
  channel?: string;
  /** Keel: the bytes of this (retracted) turn were erased for good; its content is gone, its commitments stay. */
  erased?: boolean;
  /** Keel: sha256 of the turn's content fields and salt (see `contentHash`); kept after erasure. */
  content_hash?: string | null;
  /** Keel: the per-row salt of `content_hash`; served only while the content is served (null when retracted). */
  content_salt?: string | null;
  /** Keel: the second chain link, over the metadata, `hash` and `content_hash` (see `keelHash`). */
  keel_hash?: string | null;
}

export interface Ledger {
  channel: string;
  count: number;
  /** Hash of the last hashed turn, "" when none. */
  head: string;
  turns: LedgerTurn[];
  /** The hub's own verdict; the client ignores it and recomputes. */
  verified?: boolean;
  broken_at?: number | null;
  /** Keel: the last `keel_hash`, "" when none. */
  keel_head?: string;
  /** Keel: the hub's Ed25519 signature over the heads (see `headStatement`). */
  signature?: LedgerHeadSignature;
}

/** The hub's signature over a ledger's heads, made when the ledger was served. */
export interface LedgerHeadSignature {
  alg: 'Ed25519';
  /** sha256 hex of the raw public key that signed. */
  key_id: string;
  /** ISO 8601 time the hub signed at. */
  signed_at: string;
  /** base64url of the 64-byte signature over `headStatement(...)`. */
  sig: string;
}

/** `GET /ledger/key`: the hub's ledger-signing public key. */
export interface LedgerSigningKey {
  alg: 'Ed25519';
  key_id: string;
  /** base64url of the raw 32-byte Ed25519 public key. */
  public_key: string;
}

/** Keel's second chain over the whole history, erased rows included. */
export interface KeelVerification {
  ok: boolean;
  /** Seq of the first turn whose content or Keel link does not match. */
  broken_at: number | null;
  head_mismatch: boolean;
  computed_head: string;
  /** Turns whose content was recomputed (served in full). */
  content_checked: number;
  /** Turns linked by their content commitment alone (retracted, erased or not). */
  committed_only: number;
  /** Turns written before Keel's chain existed (no `keel_hash`). */
  legacy: number;
  /** Seqs of erased turns, each still verified through its commitment. */
  erased: number[];
}

/** The head signature's verdict: `unsupported` when this runtime's WebCrypto has no Ed25519. */
export type HeadSignatureVerdict = 'valid' | 'invalid' | 'missing' | 'unsupported';

export interface LedgerVerification {
  ok: boolean;
  broken_at: number | null;
  head_mismatch: boolean;
  computed_head: string;
  hashed: number;
  legacy: number;
  redacted: number;
}

/** `ledger()`: the served ledger plus the client's own verification. */
export interface VerifiedLedger extends Ledger {
  verification: LedgerVerification;
  /** Keel's second chain (absent when the hub serves no `keel_hash`, e.g. a reference hub). */
  keel_verification?: KeelVerification;
  /** The head signature checked against the hub's key (absent when the ledger carries no signature). */
  head_signature?: HeadSignatureVerdict;
}

/** The 15 hashed fields of a turn (absent ones null). */
export interface ChainPayload {
  id: string | null;
  channel: string | null;
  seq: number | null;
  sender: string | null;
  kind: string | null;
  status: string | null;
  urgency: string | null;
  critical: number | boolean | null;
  downgraded: number | boolean | null;
  to: string[] | null;
  title: string | null;
  body: string | null;
  data: JsonObject | null;
  reply_to: string | null;
  created_at: number | null;
}

/** `POST /channels/{c}/messages/{id}/erase`: what was erased (the same answer when already erased). */
export interface ErasureResult {
  channel: string;
  message_id: string;
  seq: number;
  erased: true;
  erased_at: number;
  erased_by: string;
  /** The commitments that stay: the reference hash, the content hash and the Keel link. */
  hash: string;
  content_hash: string;
  keel_hash: string;
  /** Attachment ids this channel no longer holds (no other unerased message carried them). */
  attachments_released: string[];
  /** Of those, the blobs whose bytes were deleted (no channel holds them any more). */
  blobs_deleted: string[];
}
