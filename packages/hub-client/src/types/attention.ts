// What asks for a seat's attention: inbox acks, owed, the operators' desk, presence and the channel digest.

import type { PhaseRow } from './channels.js';
import type { Ask } from './messages.js';
import type { RulingRow, StoreEntry, UnacknowledgedRuling } from './store.js';

export interface AckResult {
  acked?: Record<string, number>;
  [key: string]: unknown;
}

/** A charter (the hub's or a room's) the seat owes a reading of. */
export interface CharterDebtRow {
  /** `hub` or a channel. */
  scope: string;
  version: number;
  your_receipt: number | null;
  gated: boolean;
  read_with: string;
  /** `version`: a newer version is in force; `view`: the seat grew since its last read. */
  reason: 'version' | 'view';
}

/** A message with pending asks addressed to the viewer. */
export interface OwedToAnswerRow {
  channel: string;
  id: string;
  seq: number;
  sender: string;
  title: string;
  pending_asks: string[];
  asks_naming_you: string[];
  created_at: number;
  escalated: boolean;
}

/** The viewer's asks answered (or declined) by someone else and not yet consumed. */
export interface OwedToConsumeRow {
  channel: string;
  id: string;
  seq: number;
  title: string;
  your_asks: string[];
  answered_by: string;
  answer_id: string;
  answer_seq: number;
  answer_created_at: number;
}

/** The viewer's open message whose asks are all discharged but that has no `resolved` reply yet. */
export interface OwedToCloseRow {
  channel: string;
  id: string;
  seq: number;
  title: string;
  answered_by: string;
  answered_at: number;
  declined_asks: string[];
  declined_by: string[];
}

/** One addressee of the viewer's pending ask, judged by that seat's inbox cursor. */
export interface OwedWaitingRow {
  channel: string;
  seq: number;
  ask: string;
  seat: string;
  state: 'not-yet-acked' | 'acked-past-no-reply' | 'retired';
}

export interface OwedReport {
  charters: CharterDebtRow[];
  phases: PhaseRow[];
  to_answer: OwedToAnswerRow[];
  to_close: OwedToCloseRow[];
  to_consume: OwedToConsumeRow[];
  waiting_on: OwedWaitingRow[];
  counts: { to_answer: number; to_consume: number; to_close: number };
  computed_at: number;
}

/** A desk row for a pending ask (or an unanswered open message) addressed to an operator. */
export interface DeskAskRow {
  kind: 'ask';
  operator: string;
  channel: string;
  seq: number;
  id: string;
  what: string;
  who_waits: string;
  age_minutes: number;
  one_action: string;
}

/** A desk row for a store-backed approval queue (reference §6; `done_when` on satisfied rows). */
export interface DeskQueueRow {
  kind: 'queue';
  operator: string;
  channel: string;
  key: string;
  what: string;
  who_waits: string | string[];
  age_minutes: number;
  one_action: string;
  done_when?: string;
}

export type DeskRow = DeskAskRow | DeskQueueRow;

export interface Desk {
  /** Oldest first. */
  rows: DeskRow[];
  satisfied: DeskQueueRow[];
  counts: { rows: number; satisfied: number };
  operators: string[];
  viewer: string;
  computed_at: number;
}

export interface PresenceRow {
  agent_id: string;
  state: 'idle' | 'working' | 'active' | 'offline' | string;
  /** 0 for a seat with no recent activity and no fresh declared state (the reference's 0.0). */
  updated_at: number | null;
}

/** A digest row: a live `open`/`blocked` message whose thread is not closed. */
export interface OpenQuestion {
  seq: number;
  id: string;
  sender: string;
  title: string;
  created_at: number;
  status: string;
  pending_asks: Ask[];
}

/**
 * A digest row: either a closed question (`answered_by`, optional `declined_by`/`declined_asks`/
 * `self_resolved`) or a `resolved` post (`resolved: true` and nothing else).
 */
export interface DecidedRow {
  seq: number;
  id: string;
  sender: string;
  title: string;
  created_at: number;
  answered_by?: string[];
  declined_by?: string[];
  declined_asks?: string[];
  self_resolved?: boolean;
  resolved?: boolean;
}

export interface Digest {
  channel: string;
  phases: PhaseRow[];
  phase_lines: string[];
  rulings: RulingRow[];
  unacknowledged_rulings: UnacknowledgedRuling[];
  open_questions: OpenQuestion[];
  /** Newest 50. */
  decided: DecidedRow[];
  /** `decision:*` store rows. */
  decisions: Array<Pick<StoreEntry, 'key' | 'value' | 'version' | 'updated_by'>>;
  counts: {
    open_questions: number; decided_shown: number; decided_total: number; declined_asks: number;
    decisions: number; rulings: number; phases: number; unacknowledged_rulings: number;
  };
}
