// Shapes the hub serves and accepts (seed §2, hub-protocol reference §6). The hub is the authority:
// a field it always serves is required here, and the hub plugin (`@keel/plugin-hub`) builds its
// answers from these very types, so TypeScript checks that it serves what the client expects.
// Open vocabularies stay open (`'open' | ... | string`); the client renders what is served and never
// converts dialects (the legacy leaderboard dialect is the one older shape still described).

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

/** The `/whoami` pointer to the hub charter: never the text, only whether the seat's receipt is current. */
export interface HubCharterPointer {
  version: number;
  your_receipt: number | null;
  current: boolean;
  view: string[];
  view_current: boolean;
  read_with: string;
  note?: string;
}

/** A live grant of powers to a seat (reference §6; the seed's `expires` is `expires_at` on the wire). */
export interface Delegation {
  agent_id: string;
  /** Sorted. */
  powers: string[];
  granted_at: number;
  expires_at: number;
  /** The same instant as `expires_at`, under the seed's name (seed §2.11). */
  expires: number;
  note: string;
  /** `''` or `'*'` (hub-wide) or one channel. */
  scope: string;
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
  /** 0 is the packaged default text. */
  version: number;
  scope: 'hub';
  view: string[];
  /** Reading records the receipt, so it is the version just read. */
  your_receipt: number;
  powers: string[];
  sliced: boolean;
  omitted: string[];
  bytes: number;
  full_bytes: number;
  read_all_with: string;
  updated_at: number | null;
  updated_by: string;
  /** Only for seats holding a live delegation. */
  delegate_brief?: string;
  packaged: boolean;
  view_note: string;
}

// ---------------------------------------------------------------------------------------------
// Messages

/** What a message carries of an attachment (hub-filled from the blob). */
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

/**
 * What the live socket and `/inbox` deliver (viewer-specific, reference §3.6). The body (and data)
 * ride along only by policy: never when already read, always for criticals, up to 4 KiB when
 * addressed to the viewer, else up to 1200 bytes.
 */
export interface Envelope {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  kind: string;
  status: string;
  urgency: string;
  /** After SLA escalation. */
  effective_urgency: string;
  escalated: boolean;
  downgraded: boolean;
  critical: boolean;
  to_me: boolean;
  addressed: boolean;
  from_operator: boolean;
  reply_to_me: boolean;
  title: string;
  body_bytes: number;
  body: string | null;
  data: MessageData | null;
  reply_to: string | null;
  pending_asks: string[];
  your_pending_asks: string[];
  /** `answered/total`, or `''` without asks. */
  ask_progress: string;
  declined_asks: string[];
  has_resolved_reply: boolean;
  /** The viewer already read it: body withheld. */
  redelivery: boolean;
  retracted: boolean;
  /** Always present on envelopes (unlike messages). */
  attachments: AttachmentRef[];
  signature: string | null;
  /** The hub verifies no signatures. */
  verified_by: null;
  created_at: number;
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

/** The upload answer (and the channel's attachment row). */
export interface UploadedAttachment extends AttachmentRef {
  channel: string;
  created_by: string;
  created_at: number;
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
  /** 0 when empty. */
  last_seq: number;
  last_at: number | null;
  created_by: string | null;
  archived: boolean;
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
  /** Always served (the hub's rows are `Required<Member>`); optional so a page can make a row from a bare id. */
  channel?: string;
  joined_at?: number;
}

export interface ChannelCharterDescriptor {
  path: string;
  updated_at: number;
  updated_by: string;
  version: number;
}

/** A `phase:<key>` store row: where a track of work stands, what comes next, who stewards it. */
export interface PhaseRow {
  channel: string;
  /** The key without its `phase:` prefix. */
  key: string;
  track: string;
  current: string;
  next: string;
  status: 'open' | 'complete';
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
  channel: string;
  created: Channel;
  invited: string[];
  failed: Array<{ agent: string; error: string }>;
  opening_seq: number | null;
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
  channel: string;
  key: string;
  value: T;
  version: number;
  updated_by: string;
  updated_at: number;
}

export interface StoreKeyRow {
  key: string;
  version: number;
  updated_by: string;
  updated_at: number;
}

/** A `work:<id>` store row as a board card: the value's fields, null where the value lacks them. */
export interface WorkRow {
  id: string;
  title: string | null;
  status: string | null;
  owner: string | null;
  card: unknown;
  priority: unknown;
  receipt: unknown;
  version: number;
  updated_by: string;
  updated_at: number;
}

/** A store row as the board reports it (the same shape as a served store entry). */
export type StoreRow = StoreEntry;

/** A message citing a work item, by `data.item_ref` or by mentioning its id. */
export interface WorkMessage {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  status: string;
  title: string;
  reply_to: string | null;
  created_at: number;
  via: 'item_ref' | 'mention';
}

/** `GET /work/{item_id}`: one item across the caller's channels. */
export interface WorkReport {
  item_id: string;
  work_rows: Array<Omit<StoreEntry, 'key'>>;
  claims: StoreRow[];
  decisions: StoreRow[];
  messages: WorkMessage[];
}

/** The value of a `ruling:<slug>` store row. */
export interface RulingValue {
  text: string;
  /** Empty (everyone), seat ids, or the roles `member`, `owner`, `operator`. */
  scope: string[];
  source_message_id?: string;
  active?: boolean;
}

export interface RulingRow {
  key: string;
  value: RulingValue;
  version: number;
  updated_by: string;
}

export interface UnacknowledgedRuling extends RulingRow {
  /** The version the viewer acknowledged, or null. */
  ack_version: number | null;
}

/** A digest row: a live message with pending asks. */
export interface OpenQuestion {
  seq: number;
  id: string;
  sender: string;
  title: string;
  created_at: number;
  status: string;
  pending_asks: Ask[];
}

/** A digest row: a message whose asks are all discharged, or that has a `resolved` reply. */
export interface DecidedRow {
  seq: number;
  id: string;
  sender: string;
  title: string;
  created_at: number;
  answered_by: string[];
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
  /** Null for a seat that never held a socket. */
  updated_at: number | null;
}

// ---------------------------------------------------------------------------------------------
// Virtual file system

export interface FsEntry {
  path: string;
  version: number;
  updated_by: string;
  updated_at: number;
  /** Bytes (decoded, for binary files). */
  size: number;
  /** The writer's, else derived from the first content line. */
  description: string;
  described: boolean;
  /** Present on binary files only. */
  encoding?: 'base64';
}

export interface FsFile {
  path: string;
  /** `''` for binary files. */
  content: string;
  content_b64: string | null;
  encoding: 'base64' | null;
  mime: string;
  version: number;
  updated_at: number;
  updated_by: string;
  description: string;
  size_bytes: number;
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

/** Always all six sections. */
export interface SearchReport {
  decisions: SearchSection;
  open_threads: SearchSection;
  work: SearchSection;
  people: SearchSection;
  files: SearchSection;
  messages: SearchSection;
  relaxed: boolean;
  channels_searched: number;
  next_cursor: string | null;
  computed_at: number;
  /** `lexical` | `fused` | `semantic` (open vocabulary). */
  mode_used: string;
  semantic_coverage: number | null;
  notice: string | null;
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
