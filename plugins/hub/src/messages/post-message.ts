/**
 * Posting: validates the post arguments (seed §2.5, refusals of reference §1.3.1), folds the
 * structured fields into `data` (asks get ids, declines fold into answers), records the asks and
 * their discharges, and inserts the row — all in one durable transaction.
 */
import type { AttachmentRef } from '@keel/hub-client';
import type { postMessageBody, WireInput } from '@keel/hub-client/wire';
import { badRequest, conflict, forbidden } from '@keel/plugin-sdk';
import { newToken, nowSeconds } from '../ids.js';
import type { AgentRecord, Ask, ChannelRecord, MessageStatus, StoredMessage, Urgency } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { TokenBucket } from '../limits/token-bucket.js';
import { capBytes, capText, sanitize } from '../text-rules.js';
import { refuseLoneSurrogates } from '../well-formed-text.js';
import type { HubWriter, WriteScope } from './hub-writer.js';

/** The post arguments (seed §2.5), as the wire schema shared with the client describes them. */
export type PostArgs = WireInput<typeof postMessageBody>;

/** A rule that may refuse a post (charter gates, closed rooms); throws the refusal. */
export type PostGate = (channel: ChannelRecord, sender: AgentRecord) => void;

/** Turns attachment refs into full `{id, filename, content_type, size}` rows, refusing unknown ids. */
export type AttachmentResolver = (channel: string, refs: Array<{ id: string; filename?: string }>) => AttachmentRef[];

const STATUSES = new Set<MessageStatus>(['open', 'reply', 'fyi', 'blocked', 'resolved']);
const URGENCIES = new Set<Urgency>(['inbox', 'next_turn', 'interrupt']);
const MAX_ASKS = 20;
const MAX_ASK_ID = 64;
const MAX_ATTACHMENTS = 8;

/** The rules every post passes, given by the composition root: gates in order, and how attachment refs resolve. */
export interface PostRules {
  gates: readonly PostGate[];
  attachments: AttachmentResolver;
}

export class MessagePoster {
  readonly gates: readonly PostGate[];
  private readonly attachments: AttachmentResolver;
  private readonly pace: TokenBucket | null;

  constructor(private readonly db: HubDb, private readonly writer: HubWriter, rate: { perMinute: number; burst: number }, rules: PostRules) {
    this.gates = rules.gates;
    this.attachments = rules.attachments;
    this.pace = rate.perMinute > 0
      ? new TokenBucket({ ...rate, refusal: (s) => `rate limit exceeded — retry in ${s}.0s (steady pace; are you in a reply loop?)` })
      : null;
  }

  /** Spends one post from the seat's budget (429 when it is spent). */
  spend(sender: AgentRecord): void {
    this.pace?.take(sender.id);
  }

  async post(channel: ChannelRecord, sender: AgentRecord, args: PostArgs): Promise<StoredMessage> {
    this.checkOpen(channel);
    this.spend(sender);
    for (const gate of this.gates) gate(channel, sender);
    return this.writer.run((w) => this.postIn(w, channel, sender, args));
  }

  checkOpen(channel: ChannelRecord): void {
    if (channel.archived) throw conflict(`channel '${channel.name}' is archived (ended); its history stays readable but it takes no new posts`);
  }

  /** Inside a write: validates and inserts one post. */
  postIn(w: WriteScope, channel: ChannelRecord, sender: AgentRecord, args: PostArgs): StoredMessage {
    // Here, not only at the HTTP edge, so the socket's `post` frame is held to the same rule.
    refuseLoneSurrogates(args, 'post');
    const status = (args.status ?? 'fyi') as MessageStatus;
    if (!STATUSES.has(status)) throw badRequest(`status must be one of open, reply, fyi, blocked, resolved — got '${args.status}'`);
    const urgency = (args.urgency ?? 'inbox') as Urgency;
    if (!URGENCIES.has(urgency)) throw badRequest(`urgency must be one of inbox, next_turn, interrupt — got '${args.urgency}'`);
    if (args.critical && !sender.operator) throw forbidden('critical messages require the operator flag');
    const title = capText(sanitize(args.title ?? ''), 120, 'text');
    const body = capBytes(args.body ?? '', 65536, 'body');
    const replyTo = args.reply_to ?? null;
    if (status === 'reply' && !replyTo) throw badRequest('status=reply requires reply_to=<the message id you are answering> — a reply answers one message');
    if (replyTo) {
      const parent = this.db.messageById(replyTo);
      if (!parent || parent.channel !== channel.name) throw badRequest('reply_to must reference a message in this channel');
    }
    const to = this.addressees(channel, sender, args.to ?? []);
    const data: Record<string, unknown> = args.data ? { ...args.data } : {};
    if (args.data !== undefined && args.data !== null && (typeof args.data !== 'object' || Array.isArray(args.data))) throw badRequest('data must be a JSON object or null');

    // Typed asks fall under the same rule as hand-built ones: only an open or blocked post asks.
    if (args.asks?.length && status !== 'open' && status !== 'blocked') throw badRequest('asks[] are only allowed on open/blocked messages');
    const asks = this.normalizeAsks(channel, [...handBuiltAsks(data.asks, status), ...(args.asks ?? [])]);
    const declines = unique([...stringsOf(data.declines, 'declines'), ...(args.declines ?? [])]);
    const answers = unique([...stringsOf(data.answers, 'answers'), ...(args.answers ?? []), ...declines]);
    const consumes = unique([...stringsOf(data.consumes, 'consumes'), ...(args.consumes ?? [])]);
    const attachmentRefs = [...handBuiltAttachments(data.attachments), ...(args.attachments ?? [])] as Array<{ id: string; filename?: string }>;
    if (asks.length) data.asks = asks;
    else delete data.asks;
    if (answers.length) data.answers = answers;
    else delete data.answers;
    if (declines.length) data.declines = declines;
    else delete data.declines;
    if (consumes.length) data.consumes = consumes;
    else delete data.consumes;
    if (attachmentRefs.length) data.attachments = this.resolveAttachments(channel.name, attachmentRefs);
    else delete data.attachments;
    // Stored and hashed exactly as it will be served: JSON's own shape (no undefined members).
    const dataText = JSON.stringify(data);
    capBytes(dataText, 65536, 'data');
    const storedData = JSON.parse(dataText) as Record<string, unknown>;

    for (const id of answers) this.requireAsk(channel.name, id);
    for (const id of consumes) {
      const ask = this.requireAsk(channel.name, id);
      if (ask.sender !== sender.id) throw badRequest(`consumes names ask '${id}', which is not yours — you consume answers to your own asks`);
    }

    const m = w.insert({
      channel: channel.name, sender: sender.id, kind: 'message', status, urgency, critical: args.critical === true, downgraded: false,
      to, title, body, data: Object.keys(storedData).length ? storedData : null, reply_to: replyTo, created_at: nowSeconds(),
    });
    for (const ask of asks) {
      this.db.asks.put([channel.name, ask.id], {
        message_id: m.id, seq: m.seq, sender: sender.id, text: ask.text, to: ask.to ?? [], answered_by: null, answer_id: null,
        answer_seq: null, answered_at: null, declined: false, consumed: false,
      });
    }
    for (const id of answers) {
      const ask = this.db.asks.get([channel.name, id])!;
      this.db.asks.put([channel.name, id], { ...ask, answered_by: sender.id, answer_id: m.id, answer_seq: m.seq, answered_at: m.created_at, declined: declines.includes(id) });
    }
    for (const id of consumes) this.db.asks.put([channel.name, id], { ...this.db.asks.get([channel.name, id])!, consumed: true });
    return m;
  }

  private addressees(channel: ChannelRecord, sender: AgentRecord, to: string[]): string[] {
    if (!Array.isArray(to) || to.some((t) => typeof t !== 'string')) throw badRequest('to must be a list of seat ids');
    const strangers = to.filter((id) => !this.db.isMember(channel.name, id));
    if (strangers.length) throw badRequest(`cannot address non-members: [${strangers.map((s) => `'${s}'`).join(', ')}]`);
    if (to.length === 0 && channel.is_dm) return this.db.membersOf(channel.name).map((m) => m.agent_id).filter((id) => id !== sender.id);
    return unique(to);
  }

  private normalizeAsks(channel: ChannelRecord, raw: unknown[]): Ask[] {
    if (raw.length > MAX_ASKS) throw badRequest(`too many asks (max ${MAX_ASKS})`);
    const seen = new Set<string>();
    return raw.map((item, i) => {
      const a = item as { id?: unknown; text?: unknown; to?: unknown };
      if (typeof a !== 'object' || a === null || Array.isArray(a)) throw badRequest('each ask must be an object with an id');
      if (typeof a.text !== 'string' || !a.text.trim()) throw badRequest(`asks[${i}] needs a non-empty text`);
      capText(a.text, 500, `asks[${i}].text`);
      const id = a.id === undefined || a.id === null || a.id === '' ? newToken('ask_', 6) : String(a.id);
      if ([...id].length > MAX_ASK_ID) throw badRequest(`asks[${i}].id is ${[...id].length} characters; the cap is ${MAX_ASK_ID}. Shorten it — the hub will not choose which characters to drop.`);
      if (seen.has(id)) throw badRequest('ask ids must be unique and non-empty');
      if (this.db.asks.doesExist([channel.name, id])) throw conflict(`ask id '${id}' is already used in '${channel.name}' — ask ids are unique per channel`);
      seen.add(id);
      const ask: Ask = { id, text: a.text };
      if (a.to !== undefined) {
        if (!Array.isArray(a.to) || a.to.length > 3 || a.to.some((t) => typeof t !== 'string')) throw badRequest(`asks[${i}].to names at most 3 seats`);
        const strangers = (a.to as string[]).filter((t) => !this.db.isMember(channel.name, t));
        if (strangers.length) throw badRequest(`cannot address non-members: [${strangers.map((s) => `'${s}'`).join(', ')}]`);
        ask.to = a.to as string[];
      }
      return ask;
    });
  }

  private requireAsk(channel: string, id: string) {
    const ask = [...id].length <= MAX_ASK_ID ? this.db.asks.get([channel, id]) : undefined;
    if (!ask) throw badRequest(`ask '${id}' is not an open question in '${channel}' — answers, declines and consumes name ask ids of this channel`);
    return ask;
  }

  private resolveAttachments(channel: string, refs: Array<{ id: string; filename?: string }>): AttachmentRef[] {
    if (refs.length > MAX_ATTACHMENTS) throw badRequest(`a message carries at most ${MAX_ATTACHMENTS} attachments`);
    if (refs.some((r) => typeof r !== 'object' || r === null || Array.isArray(r))) throw badRequest("each attachment ref needs an id (the blob's sha256 from the upload)");
    return this.attachments(channel, refs);
  }
}

/** `data.asks` written by hand: refused (400, the reference's sentences), never silently dropped, when it is not a list on an open/blocked post. */
function handBuiltAsks(value: unknown, status: MessageStatus): unknown[] {
  if (value === undefined || value === null) return [];
  if (status !== 'open' && status !== 'blocked') throw badRequest('asks[] are only allowed on open/blocked messages');
  if (!Array.isArray(value)) throw badRequest('asks must be a list');
  return value;
}

/** `data.attachments` written by hand: a list of refs, else 400 (never silently dropped). */
function handBuiltAttachments(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('attachments must be a list of {id, filename?} refs');
  return value;
}

function stringsOf(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw badRequest(`data.${field} must be a list of ask ids`);
  return value as string[];
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
