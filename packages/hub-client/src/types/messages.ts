// Messages as posted, read, rated and retracted (seed §2.5).

import type { AttachmentRef } from './files.js';
import type { JsonObject } from './json.js';

export interface Ask {
  id: string;
  text: string;
  assignee?: string;
  to?: string[];
}

/** Open protocol metadata of a message (seed §2.5). */
export interface MessageData {
  answers?: string[];
  asks?: Ask[];
  attachments?: AttachmentRef[];
  consumes?: string[];
  declines?: string[];
  evidence?: JsonObject[];
  [key: string]: unknown;
}

export interface RatingTally {
  up: number;
  down: number;
  mine: -1 | 0 | 1;
}

export interface Message {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  kind: 'message' | 'system' | 'fs' | string;
  status: 'open' | 'reply' | 'fyi' | 'blocked' | 'resolved' | string;
  urgency: 'inbox' | 'next_turn' | 'interrupt' | string;
  critical: boolean;
  downgraded: boolean;
  /** `[]` when unaddressed (never null). */
  to: string[];
  title: string;
  body: string;
  data: MessageData | null;
  /** The attachment refs (seed §2.4), also folded into `data.attachments`; `[]` on a tombstone. */
  attachments: AttachmentRef[];
  reply_to: string | null;
  created_at: number;
  retracted: boolean;
  retracted_at: number | null;
}

/**
 * A history row: a message plus viewer-scoped decorations (null on retracted rows; `read` null on
 * the viewer's own). The hub serves every decoration (its rows are `Required<MessageRow>`); they
 * are optional here so a page can fold a freshly posted `Message` into its history.
 */
export interface MessageRow extends Message {
  has_resolved_reply?: boolean | null;
  pending_asks?: string[] | null;
  ratings?: RatingTally | null;
  read?: boolean | null;
  /** The hub's settlement verdict. */
  closed?: boolean | null;
  /** The seat whose authoritative `resolved` reply closed it (null when closed by full discharge). */
  closed_by?: string | null;
}

/** Arguments of `post_message` (seed §2.5). */
export interface PostMessageArgs {
  body: string;
  title?: string;
  status?: string;
  to?: string[];
  reply_to?: string | null;
  answers?: string[];
  declines?: string[];
  data?: MessageData | null;
  attachments?: Array<{ id: string; filename?: string }>;
  [key: string]: unknown;
}

export interface SendDmArgs {
  body: string;
  title?: string;
  /** Default `open`. */
  status?: string;
  data?: MessageData | null;
}

export interface MessagesQuery {
  since?: number;
  limit?: number;
  sort?: 'recency' | 'votes';
}

export interface RetractThreadResult {
  channel: string;
  root: string;
  count: number;
  already_retracted: string[];
  skipped_non_messages: string[];
  messages: Message[];
}

export interface MessageRating {
  channel: string;
  message_id: string;
  rater: string;
  target: string;
  value: number;
  note: string;
  created_at: number;
  updated_at: number;
}
