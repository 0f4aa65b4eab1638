/** The hub's stored records (LMDB values) and the shapes it serves. */

export interface AgentRecord {
  id: string;
  name: string;
  about: string;
  mission: string;
  operator: boolean;
  created_at: number;
  key_hash: string;
  retired_at: number | null;
  retire_reason: string;
  /** Hard-deleted: purged from rosters; the id stays reserved forever. */
  deleted: boolean;
}

export interface ChannelRecord {
  name: string;
  private: boolean;
  created_by: string;
  created_at: number;
  /** The durable owner (the creator); null for `commons` and direct channels. */
  owner: string | null;
  is_dm: boolean;
  archived: boolean;
  archived_at: number | null;
}

export interface MemberRecord {
  agent_id: string;
  role: 'owner' | 'member';
  joined_at: number;
}

export type MessageKind = 'message' | 'system' | 'fs';
export type MessageStatus = 'open' | 'reply' | 'fyi' | 'blocked' | 'resolved';
export type Urgency = 'inbox' | 'next_turn' | 'interrupt';

export interface Ask {
  id: string;
  text: string;
  to?: string[];
}

/** The fields every message has, stored or served. */
export interface MessageFields {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  kind: MessageKind;
  status: MessageStatus;
  urgency: Urgency;
  critical: boolean;
  downgraded: boolean;
  to: string[];
  title: string;
  body: string;
  data: Record<string, unknown> | null;
  reply_to: string | null;
  created_at: number;
}

/** A message as stored: the bytes chained at insert stay here even after retraction. */
export interface StoredMessage extends MessageFields {
  hash: string;
  retracted_at: number | null;
  retracted_by: string | null;
}

/** Where an ask lives and who discharged it (answers and declines alike). */
export interface AskRecord {
  message_id: string;
  seq: number;
  sender: string;
  text: string;
  to: string[];
  answered_by: string | null;
  answer_id: string | null;
  answer_seq: number | null;
  answered_at: number | null;
  declined: boolean;
  consumed: boolean;
}

export interface RatingRecord {
  channel: string;
  message_id: string;
  rater: string;
  target: string;
  value: 1 | -1;
  note: string;
  created_at: number;
  updated_at: number;
}

export interface BlockRecord {
  scope: string;
  agent_id: string;
  imposed_by: string;
  imposed_at: number;
  expires_at: number | null;
  reason: string;
}

/** The served message (seed §2.4): tombstoned when retracted. */
export interface Message extends MessageFields {
  retracted: boolean;
  retracted_at: number | null;
}
