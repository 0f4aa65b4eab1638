/**
 * The viewer-specific envelope the inbox and the live socket deliver (reference §3.6). The body
 * rides along only by policy: never when already read, always for criticals, up to 4 KiB when
 * addressed to the viewer, else up to 1200 bytes.
 */
import type { AttachmentRef, Envelope } from '@keel/hub-client';
import { isDirectiveDebt, SETTLING_STATUSES } from '../attention/pinned-obligations.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { MessageFacts } from './message-views.js';
import { tombstoneBody } from './message-views.js';

/** What makes one viewer's envelope differ from another's; with the message's shared part it determines the envelope. */
export interface ViewerFacts {
  toMe: boolean;
  replyToMe: boolean;
  read: boolean;
  yours: string[];
}

export class EnvelopeBuilder {
  /** `closed`: whether a message's thread is closed (its pending asks are then served as none). */
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts, private readonly closed: (m: StoredMessage) => boolean = () => false) {}

  build(m: StoredMessage, viewer: string): Envelope {
    const prepared = this.prepare(m);
    return prepared.envelope(prepared.viewer(viewer));
  }

  /**
   * Reads the viewer-independent facts of a message once, for building many viewers' envelopes
   * (the live fan-out). Use it within one synchronous pass: it does not see later writes.
   */
  prepare(m: StoredMessage): PreparedEnvelope {
    return m.retracted_at !== null ? new PreparedTombstone(m) : new PreparedMessage(this.db, this.facts, m, this.closed);
  }

  tombstone(m: StoredMessage): Envelope {
    return tombstoneEnvelope(m);
  }
}

export interface PreparedEnvelope {
  /** `unread`: the row was committed this very tick, so nobody can have read it yet (skips the lookup). */
  viewer(viewer: string, unread?: boolean): ViewerFacts;
  envelope(v: ViewerFacts): Envelope;
}

const NOBODY: ViewerFacts = { toMe: false, replyToMe: false, read: false, yours: [] };

class PreparedTombstone implements PreparedEnvelope {
  constructor(private readonly m: StoredMessage) {}

  viewer(): ViewerFacts {
    return NOBODY;
  }

  envelope(): Envelope {
    return tombstoneEnvelope(this.m);
  }
}

class PreparedMessage implements PreparedEnvelope {
  private readonly askIds: string[];
  private readonly pending: string[];
  /** Addressees of each pending ask. */
  private readonly askTo: Map<string, string[]>;
  private readonly declined: string[];
  private readonly parentSender: string | undefined;
  private readonly bytes: number;
  private readonly fromOperator: boolean;
  private readonly hasResolvedReply: boolean;

  constructor(private readonly db: HubDb, facts: MessageFacts, private readonly m: StoredMessage, closed: (m: StoredMessage) => boolean) {
    this.askIds = facts.askIds(m);
    this.pending = facts.pendingAsks(m);
    // A closed thread (say its asker resolved it) owes nothing more, whatever asks were left.
    if (this.pending.length && closed(m)) this.pending = [];
    this.askTo = new Map(this.pending.map((id) => [id, db.asks.get([m.channel, id])?.to ?? []]));
    this.declined = this.askIds.filter((id) => db.asks.get([m.channel, id])?.declined === true);
    this.parentSender = m.reply_to ? db.messageById(m.reply_to)?.sender : undefined;
    this.bytes = Buffer.byteLength(m.body);
    this.fromOperator = db.agents.get(m.sender)?.operator === true;
    this.hasResolvedReply = facts.replies(m).some((r) => r.status === 'resolved');
  }

  viewer(viewer: string, unread = false): ViewerFacts {
    const m = this.m;
    const toMe = m.to.includes(viewer);
    return {
      toMe,
      replyToMe: this.parentSender === viewer,
      read: unread ? false : this.db.reads.doesExist([viewer, m.id]),
      yours: this.pending.filter((id) => this.askTo.get(id)!.includes(viewer) || toMe),
    };
  }

  envelope(v: ViewerFacts): Envelope {
    const m = this.m;
    const bytes = this.bytes;
    const inline = !v.read && (m.critical || ((v.toMe || v.replyToMe) && bytes <= 4096) || bytes <= 1200);
    return {
      id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind, status: m.status, urgency: m.urgency,
      effective_urgency: m.urgency, escalated: false, downgraded: m.downgraded, critical: m.critical, to_me: v.toMe,
      addressed: m.to.length > 0, from_operator: this.fromOperator, reply_to_me: v.replyToMe,
      title: m.title, body_bytes: bytes, body: inline ? m.body : null, data: inline ? m.data : null, reply_to: m.reply_to,
      pending_asks: [...this.pending], your_pending_asks: v.yours, ask_progress: this.askIds.length ? `${this.askIds.length - this.pending.length}/${this.askIds.length}` : '',
      declined_asks: [...this.declined], has_resolved_reply: this.hasResolvedReply,
      // Served again after a read only because it still obliges the viewer (reference §8.1 B1).
      redelivery: v.read && (SETTLING_STATUSES.has(m.status) || isDirectiveDebt(m, v, this.fromOperator)),
      retracted: false, attachments: Array.isArray(m.data?.attachments) ? (m.data.attachments as AttachmentRef[]) : [],
      signature: typeof m.data?.signature === 'string' ? m.data.signature : null, verified_by: null, created_at: m.created_at,
    };
  }
}

function tombstoneEnvelope(m: StoredMessage): Envelope {
  const body = tombstoneBody(m);
  return {
    id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind, status: 'fyi', urgency: m.urgency,
    effective_urgency: m.urgency, escalated: false, downgraded: m.downgraded, critical: m.critical, to_me: false, addressed: m.to.length > 0,
    from_operator: false, reply_to_me: false, title: '', body_bytes: Buffer.byteLength(body), body, data: null, reply_to: m.reply_to,
    pending_asks: [], your_pending_asks: [], ask_progress: '', declined_asks: [], has_resolved_reply: false, redelivery: false,
    retracted: true, attachments: [], signature: null, verified_by: null, created_at: m.created_at,
  };
}
