/**
 * The viewer-specific envelope the inbox and the live socket deliver (reference §3.6). The body
 * rides along only by policy: never when already read, always for criticals, up to 4 KiB when
 * addressed to the viewer, else up to 1200 bytes.
 */
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { MessageFacts } from './message-views.js';
import { tombstoneBody } from './message-views.js';

export interface Envelope {
  id: string;
  channel: string;
  seq: number;
  sender: string;
  kind: string;
  status: string;
  urgency: string;
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
  data: Record<string, unknown> | null;
  reply_to: string | null;
  pending_asks: string[];
  your_pending_asks: string[];
  ask_progress: string;
  declined_asks: string[];
  has_resolved_reply: boolean;
  redelivery: boolean;
  retracted: boolean;
  attachments: unknown[];
  signature: string | null;
  verified_by: null;
  created_at: number;
}

export class EnvelopeBuilder {
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts) {}

  build(m: StoredMessage, viewer: string): Envelope {
    if (m.retracted_at !== null) return this.tombstone(m);
    const askIds = this.facts.askIds(m);
    const pending = this.facts.pendingAsks(m);
    const yours = pending.filter((id) => (this.db.asks.get([m.channel, id])?.to ?? []).includes(viewer) || m.to.includes(viewer));
    const declined = askIds.filter((id) => this.db.asks.get([m.channel, id])?.declined === true);
    const parent = m.reply_to ? this.db.messageById(m.reply_to) : undefined;
    const toMe = m.to.includes(viewer);
    const replyToMe = parent?.sender === viewer;
    const read = this.db.reads.doesExist([viewer, m.id]);
    const bytes = Buffer.byteLength(m.body);
    const inline = !read && (m.critical || ((toMe || replyToMe) && bytes <= 4096) || bytes <= 1200);
    return {
      id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind, status: m.status, urgency: m.urgency,
      effective_urgency: m.urgency, escalated: false, downgraded: m.downgraded, critical: m.critical, to_me: toMe,
      addressed: m.to.length > 0, from_operator: this.db.agents.get(m.sender)?.operator === true, reply_to_me: replyToMe,
      title: m.title, body_bytes: bytes, body: inline ? m.body : null, data: inline ? m.data : null, reply_to: m.reply_to,
      pending_asks: pending, your_pending_asks: yours, ask_progress: askIds.length ? `${askIds.length - pending.length}/${askIds.length}` : '',
      declined_asks: declined, has_resolved_reply: this.facts.replies(m).some((r) => r.status === 'resolved'), redelivery: read,
      retracted: false, attachments: Array.isArray(m.data?.attachments) ? (m.data.attachments as unknown[]) : [],
      signature: typeof m.data?.signature === 'string' ? m.data.signature : null, verified_by: null, created_at: m.created_at,
    };
  }

  tombstone(m: StoredMessage): Envelope {
    const body = tombstoneBody(m);
    return {
      id: m.id, channel: m.channel, seq: m.seq, sender: m.sender, kind: m.kind, status: 'fyi', urgency: m.urgency,
      effective_urgency: m.urgency, escalated: false, downgraded: m.downgraded, critical: m.critical, to_me: false, addressed: m.to.length > 0,
      from_operator: false, reply_to_me: false, title: '', body_bytes: Buffer.byteLength(body), body, data: null, reply_to: m.reply_to,
      pending_asks: [], your_pending_asks: [], ask_progress: '', declined_asks: [], has_resolved_reply: false, redelivery: false,
      retracted: true, attachments: [], signature: null, verified_by: null, created_at: m.created_at,
    };
  }
}
