/**
 * One committed message's `envelope` frames for the live fan-out. The message's shared facts (asks,
 * parent, sender flag, settled replies) are read once instead of once per socket, and each distinct
 * envelope is serialised and encoded once: most members of a room see the same one, so a post to
 * a 100-member room costs one `JSON.stringify` instead of 100. Lives for one synchronous delivery
 * pass (it does not see later writes).
 */
import type { IncomingFrame } from '@keel/hub-client';
import type { EnvelopeBuilder, PreparedEnvelope } from '../messages/envelope.js';
import type { StoredMessage } from '../records.js';
import { encodeTextFrame } from './ws-text-frame.js';

export class EnvelopeFrames {
  private prepared: PreparedEnvelope | null = null;
  /** Wire frame (header and UTF-8 text) per distinct set of viewer facts (which, with the shared part, determine the envelope). */
  private readonly frames = new Map<string, Buffer>();

  /** `live`: the message was committed this tick (no viewer can have read it yet). */
  constructor(private readonly envelopes: EnvelopeBuilder, private readonly m: StoredMessage, private readonly live = false) {}

  /** The WebSocket text frame of `{type: 'envelope', envelope}` as `viewer` sees the message. */
  for(viewer: string): Buffer {
    const prepared = (this.prepared ??= this.envelopes.prepare(this.m));
    const facts = prepared.viewer(viewer, this.live);
    const key = `${facts.toMe ? 1 : 0}${facts.replyToMe ? 1 : 0}${facts.read ? 1 : 0}${facts.yours.join('\n')}`;
    let frame = this.frames.get(key);
    if (!frame) {
      frame = encodeTextFrame(Buffer.from(JSON.stringify({ type: 'envelope', envelope: prepared.envelope(facts) } satisfies IncomingFrame)));
      this.frames.set(key, frame);
    }
    return frame;
  }
}
