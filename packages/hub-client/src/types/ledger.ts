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
}

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
