// Shapes the hub serves and accepts (seed §2, hub-protocol reference §6). Fields the hub may omit on
// older versions are optional; the client renders what is served and never converts dialects.

/** An open JSON object (message data, meta values, vote breakdowns...). */
export type JsonObject = { [key: string]: unknown };

// ---------------------------------------------------------------------------------------------
// Health, identity, charter

export interface Health {
  ok: boolean;
  paused: boolean;
  protocol: string;
  version: string;
  db?: 'ok' | 'contended' | string;
}

export interface HubCharterPointer {
  version: number;
  your_receipt: number | null;
  current: boolean;
  view: string[];
  view_current: boolean;
  read_with: string;
  note?: string;
}

export interface Delegation {
  agent_id: string;
  powers: string[];
  note: string;
  /** Seed shape. */
  expires?: number | null;
  /** Real-hub shape. */
  granted_at?: number;
  expires_at?: number | null;
  scope?: string;
}

export interface WhoamiReport {
  id: string;
  name?: string;
  about?: string;
  mission?: string;
  operator?: boolean;
  created_at?: number;
  version?: string;
  protocol?: string;
  hub_rules?: { version: number; text: string };
  hub_charter?: HubCharterPointer | null;
  hub_state?: { state: 'open' } | { state: 'paused'; since: number; reason: string; by: string };
  delegations?: Delegation[];
}

/** The identity summary `meta()` derives from `/whoami` (seed §2.3). */
export interface Meta {
  ok: boolean;
  hub_url: string;
  seat: string | null;
  seat_key_present: boolean;
  operator: boolean;
  mission: string;
  hub_charter: HubCharterPointer | null;
}

export interface HubCharterDoc {
  text: string;
  version: number;
  scope: string;
  view: string[];
  your_receipt: number | null;
  powers: string[];
  sliced: boolean;
  omitted: string[];
  bytes: number;
  full_bytes: number;
  read_all_with: string;
  updated_at: number | null;
  updated_by: string | null;
  delegate_brief?: string;
  packaged: boolean;
  view_note: string;
}

// ---------------------------------------------------------------------------------------------
// Messages

export interface AttachmentRef {
  id: string;
  filename: string;
  content_type: string;
  size: number;
}

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
  mine: -1 | 0 | 1 | number;
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
  downgraded?: boolean;
  to: string[] | null;
  title: string;
  body: string;
  data: MessageData | null;
  reply_to: string | null;
  created_at: number;
  retracted?: boolean;
  retracted_at?: number | null;
  /** Seed §2.4: refs; the real hub folds them into `data.attachments` only. */
  attachments?: AttachmentRef[];
}

/** A history row: a message plus viewer-scoped decorations (null on retracted rows). */
export interface MessageRow extends Message {
  has_resolved_reply?: boolean | null;
  pending_asks?: string[] | null;
  ratings?: RatingTally | null;
  read?: boolean | null;
  closed?: boolean | null;
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

/** What the live socket and `/inbox` deliver (viewer-specific). */
export interface Envelope {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  kind: string;
  status: string;
  urgency?: string;
  effective_urgency?: string;
  escalated?: boolean;
  downgraded?: boolean;
  critical?: boolean;
  to_me?: boolean;
  addressed?: boolean;
  from_operator?: boolean;
  reply_to_me?: boolean;
  title: string;
  body_bytes?: number;
  body: string | null;
  data: MessageData | null;
  reply_to: string | null;
  pending_asks?: string[];
  your_pending_asks?: string[];
  ask_progress?: string;
  declined_asks?: string[];
  has_resolved_reply?: boolean | null;
  redelivery?: boolean;
  retracted?: boolean;
  attachments?: AttachmentRef[];
  signature?: string | null;
  verified_by?: string | null;
  created_at: number;
}

export interface RetractThreadResult {
  channel?: string;
  root?: string;
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

export interface UploadedAttachment extends AttachmentRef {
  channel?: string;
  created_by?: string;
  created_at?: number;
}

export interface UploadOptions {
  /** Default: the File's name, else `file`. */
  filename?: string;
  /** Declared type; default: the Blob's type, else `application/octet-stream`. */
  content_type?: string;
}

// ---------------------------------------------------------------------------------------------
// Channels

export interface ChannelRow {
  name: string;
  private: boolean;
  member: boolean;
  member_count: number;
  last_seq: number;
  last_at: number | null;
  created_by?: string | null;
  archived?: boolean;
}

export interface Channel {
  name: string;
  private: boolean;
  created_by: string | null;
  created_at: number;
}

export interface Member {
  agent_id: string;
  role: 'owner' | 'member' | string;
  about: string;
  mission: string;
  channel?: string;
  joined_at?: number;
}

export interface ChannelCharterDescriptor {
  path: string;
  updated_at: number;
  updated_by: string;
  version: number;
}

export interface PhaseRow {
  channel: string;
  key: string;
  track: string;
  current: string;
  next: string;
  status: string;
  steward: string;
  paths: string[];
  note: string;
  declared_by: string;
  declared_at: number;
  version: number;
}

export interface ChannelMetaValue {
  purpose?: string;
  norms?: string;
  expected_traffic?: string;
  norms_required?: boolean;
  response_sla_minutes?: number;
  language?: string;
  state?: string;
  [key: string]: unknown;
}

export interface ChannelInfo {
  channel: Channel | null;
  charter: string | ChannelCharterDescriptor | null;
  language: string;
  members: Array<Member | string>;
  meta: ChannelMetaValue | null;
  phases: PhaseRow[];
  response_sla_minutes: number;
  state: 'open' | 'closed' | 'archived' | string;
  is_dm?: boolean;
}

export interface JoinResult extends Partial<ChannelInfo> {
  joined: boolean;
}

export interface CreateGroupArgs {
  name: string;
  members: string[];
  purpose: string;
  opening_post?: string;
  private?: boolean;
}

export interface CreateGroupResult {
  channel?: string;
  created?: Channel;
  invited?: string[];
  failed?: Array<{ agent: string; error: string }>;
  opening_seq?: number | null;
}

export interface InviteToken {
  invite_token: string;
  channel: string;
  agent_id: string | null;
}

/** `create_invite`: the token plus the outcome of delivering it by direct message. */
export interface CreateInviteResult extends InviteToken {
  /** The DM that carried the token, or null when delivery failed. */
  dm: Message | null;
  /** The hub's refusal of the DM, when delivery failed. */
  dm_error: string | null;
}

export interface ArchiveResult {
  channel: string;
  archived: boolean;
  evicted?: string[];
  already_archived?: boolean;
  owner?: string | null;
  already_open?: boolean;
}

export interface StoreEntry<T = unknown> {
  channel?: string;
  key: string;
  value: T;
  version: number;
  updated_by?: string;
  updated_at?: number;
}

export interface StoreKeyRow {
  key: string;
  version: number;
  updated_by: string;
  updated_at: number;
}

export interface WorkRow {
  id: string;
  title: string;
  status: string;
  owner: string | null;
  card?: unknown;
  priority?: unknown;
  receipt?: unknown;
  version: number;
  updated_by: string;
  updated_at: number;
}

export interface StoreRow {
  channel: string;
  key: string;
  value: unknown;
  version: number;
  updated_by: string;
  updated_at: number;
}

export interface WorkReport {
  item_id: string;
  work_rows: Array<{ channel: string; value: unknown; version: number; updated_by: string; updated_at: number }>;
  claims: StoreRow[];
  decisions: StoreRow[];
  messages: Array<{ id: string; channel: string; seq: number; sender: string; status: string; title: string; reply_to: string | null; created_at: number; via: string }>;
}

export interface Digest {
  channel: string;
  phases?: PhaseRow[];
  phase_lines?: string[];
  rulings?: Array<{ key: string; value: JsonObject; version: number; updated_by: string }>;
  unacknowledged_rulings?: Array<{ key: string; value: JsonObject; version: number; updated_by: string; ack_version: number | null }>;
  open_questions?: JsonObject[];
  decided?: JsonObject[];
  decisions?: Array<{ key: string; value: unknown; version: number; updated_by: string }>;
  counts?: { open_questions?: number; [key: string]: number | undefined };
}

// ---------------------------------------------------------------------------------------------
// Ledger (hash chain)

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

// ---------------------------------------------------------------------------------------------
// Inbox, owed, desk, presence

export interface AckResult {
  acked?: Record<string, number>;
  [key: string]: unknown;
}

export interface CharterDebtRow {
  scope: string;
  version: number;
  your_receipt: number | null;
  gated: boolean;
  read_with: string;
  reason: string;
}

export interface OwedToConsumeRow {
  channel: string;
  seq: number;
  answer_id: string;
  answer_seq: number;
  answered_by: string;
  title: string;
  your_asks: string[];
  id?: string;
  answer_created_at?: number;
}

export interface OwedReport {
  charters: CharterDebtRow[];
  phases: PhaseRow[];
  to_answer: JsonObject[];
  to_close: JsonObject[];
  to_consume: OwedToConsumeRow[];
  waiting_on: JsonObject[];
  counts: { to_answer: number; to_consume: number; to_close?: number };
  computed_at: number;
}

export interface DeskRow {
  kind: 'ask' | 'queue' | string;
  operator?: string;
  channel: string;
  seq?: number;
  id?: string;
  key?: string;
  what: string;
  who_waits: string | string[];
  age_minutes: number;
  one_action: string;
  done_when?: string;
}

export interface Desk {
  rows: DeskRow[];
  satisfied: DeskRow[];
  counts: { rows: number; satisfied: number };
  operators: string[];
  viewer: string;
  computed_at: number;
}

export interface PresenceRow {
  agent_id: string;
  state: 'idle' | 'working' | 'active' | 'offline' | string;
  updated_at?: number;
}

// ---------------------------------------------------------------------------------------------
// Virtual file system

export interface FsEntry {
  path: string;
  version: number;
  updated_by: string;
  updated_at: number;
  size: number;
  description: string;
  described: boolean;
  encoding?: 'base64' | null;
}

export interface FsFile {
  path: string;
  content: string;
  content_b64: string | null;
  encoding: 'base64' | null;
  mime: string;
  version: number;
  updated_at: number;
  updated_by: string;
  description?: string;
  size_bytes?: number;
}

/** Exactly one of `content` / `content_b64` (the hub refuses both or neither). */
export interface FsPutArgs {
  content?: string;
  content_b64?: string;
  description?: string;
  mime?: string;
  expect_version?: number | null;
}

export interface FsDeleteResult {
  deleted: boolean;
}

// ---------------------------------------------------------------------------------------------
// Lifecycle, moderation, delegation, missions

export interface MissionRow {
  agent_id: string;
  mission: string;
}

export interface RetiredAgentRow {
  id: string;
  reason: string;
  retired_at: number;
}

export interface BlockRow {
  scope: string;
  agent_id: string;
  imposed_by: string;
  imposed_at: number;
  expires_at: number | null;
  reason: string;
}

export interface BlockOptions {
  /** Omitted or null: a ban; a positive number: a timed kick. */
  seconds?: number | null;
  reason?: string;
}

export interface DelegationOptions {
  note?: string;
  ttl_seconds?: number | null;
}

// ---------------------------------------------------------------------------------------------
// Reputation

export interface Vote {
  channel: string;
  target: string;
  rater: string;
  axis: string;
  value: number;
  note: string;
  created_at: number;
  updated_at: number;
}

export interface CategoryCell {
  up: number;
  down: number;
  raters: number;
  score: number;
}

/** Unified dialect `{target, raters, score, breakdown, votes, channels}` or legacy `{target, raters, total, axes, messages}`. */
export interface LeaderboardRow {
  target: string;
  raters: number;
  score?: number;
  breakdown?: Record<string, CategoryCell>;
  votes?: { up: number; down: number };
  channels?: number;
  total?: number;
  axes?: JsonObject;
  messages?: unknown;
}

export interface LeaderboardReport {
  channel: string | null;
  categories?: string[];
  axes?: string[];
  leaderboard: LeaderboardRow[];
}

// ---------------------------------------------------------------------------------------------
// Search

export interface SearchArgs {
  q?: string;
  channel?: string | string[];
  /** Alias of `channel` (the seed's `channel[]`); sent as repeated `channel`. */
  channels?: string[];
  kind?: string;
  sender?: string;
  ref?: string;
  since?: number;
  until?: number;
  limit?: number;
  cursor?: string | null;
  sort?: 'relevance' | 'recent' | 'votes' | string;
  rated?: 'up' | 'down' | 'any' | string;
  min_votes?: number;
}

export interface SearchHit {
  kind: string;
  ref: string;
  channel: string | null;
  seq: number | null;
  sender: string | null;
  status: string | null;
  created_at: number;
  snippet: string;
  /** `[start, length]` code-point offsets into `snippet`. */
  highlights: Array<[number, number]>;
  title: string;
  thread_hits: number | null;
  ratings: RatingTally | null;
}

export interface SearchSection {
  hits: SearchHit[];
  shown: number;
  total: number;
}

export interface SearchReport {
  decisions?: SearchSection;
  open_threads?: SearchSection;
  work?: SearchSection;
  people?: SearchSection;
  files?: SearchSection;
  messages?: SearchSection;
  relaxed?: boolean;
  channels_searched?: number;
  next_cursor?: string | null;
  computed_at?: number;
  mode_used?: string;
  semantic_coverage?: number | null;
  notice?: string | null;
  [key: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Live socket

export interface SubscribeFrame {
  type: 'subscribe';
  channels: string[];
  since?: Record<string, number>;
}

export type IncomingFrame =
  | { type: 'subscribed'; channels: string[] }
  | { type: 'envelope'; envelope: Envelope }
  | { type: 'posted'; id: string; seq: number }
  | { type: 'pong' }
  | { type: 'error'; detail: string; status?: number };
