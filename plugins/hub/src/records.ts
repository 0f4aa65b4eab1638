/**
 * The hub's stored records (LMDB values). The shapes it serves are the client's
 * (`@keel/hub-client`); a record that is also served derives from the served shape, narrowing it to
 * the hub's own vocabularies and adding what only the store keeps.
 */
import type { Ask as ServedAsk, BlockRow, Channel, Message as ServedMessage, MessageRating } from '@keel/hub-client';

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

/** A channel as stored: the served channel plus what only the hub keeps. */
export interface ChannelRecord extends Channel {
  created_by: string;
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

/** An ask as the hub stores it in `data.asks` (it keeps no `assignee`). */
export type Ask = Pick<ServedAsk, 'id' | 'text' | 'to'>;

/**
 * The fields every message has, stored or served: the served message's, in the hub's vocabularies,
 * with `data` as stored (the hub normalizes the keys it owns and keeps the rest as sent).
 */
export interface MessageFields extends Omit<ServedMessage, 'kind' | 'status' | 'urgency' | 'data' | 'attachments' | 'retracted' | 'retracted_at'> {
  kind: MessageKind;
  status: MessageStatus;
  urgency: Urgency;
  data: Record<string, unknown> | null;
}

/** A message as stored: the bytes chained at insert stay here even after retraction. */
export interface StoredMessage extends MessageFields {
  hash: string;
  retracted_at: number | null;
  retracted_by: string | null;
  /** Keel's redactable commitment (chain/keel-commitment.ts); absent on rows written before it existed. */
  content_salt?: string | null;
  content_hash?: string;
  keel_hash?: string;
  /** Set when an operator erased the (retracted) row's content for good; content and salt are then gone. */
  erased_at?: number | null;
  erased_by?: string | null;
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

/** A message rating, stored and served as is: a thumb up or down. */
export interface RatingRecord extends MessageRating {
  value: 1 | -1;
}

/** A kick or ban, stored and served as is (`scope` a channel or `hub`). */
export type BlockRecord = BlockRow;

/** The served message (seed §2.4): tombstoned when retracted. */
export interface Message extends MessageFields, Pick<ServedMessage, 'attachments' | 'retracted' | 'retracted_at'> {}
