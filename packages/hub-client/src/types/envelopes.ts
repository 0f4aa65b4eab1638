// What the live socket and `/inbox` deliver: envelopes and the socket frames around them.

import type { AttachmentRef } from './files.js';
import type { MessageData } from './messages.js';

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
