/**
 * Obligations pinned in a seat's `/inbox` (reference §8.1 B1): the cursor is ignored, so an ack
 * never unpins them; answering, declining, replying or a closed thread does.
 *
 * - An `open`/`blocked` row someone else sent, while its thread is not closed:
 *   - addressed to the viewer (message `to`, or an ask's `to`): pinned until the viewer posts any
 *     reply; a seat named only by asks is released once no pending ask names it. A bare read
 *     does not unpin.
 *   - addressed to others: not pinned, unless none of them is still available (a member of the
 *     channel, not blocked from the hub); then it is pinned as a broadcast.
 *   - a broadcast: pinned until the viewer reads it (a reply counts as a read, except of a critical).
 * - A directive debt (`isDirectiveDebt`): pinned until the viewer posts any reply to it or the
 *   thread is authoritatively closed. The reporting delegate also owes the operators' unaddressed
 *   `reply`/`fyi` lines.
 */
import { nowSeconds } from '../ids.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { ThreadState } from './thread-state.js';

export const SETTLING_STATUSES: ReadonlySet<string> = new Set(['open', 'blocked']);

/**
 * A `reply`/`fyi` message addressed to the viewer that obliges it to answer: from an operator, or
 * a peer's `reply` that does not answer the viewer's own message (a peer `fyi` never obliges). A
 * message that answers asks is itself an answer, not a directive.
 */
export function isDirectiveDebt(m: StoredMessage, viewer: { toMe: boolean; replyToMe: boolean }, fromOperator: boolean): boolean {
  if (m.kind !== 'message' || (m.status !== 'reply' && m.status !== 'fyi') || !viewer.toMe) return false;
  if (Array.isArray(m.data?.answers) && m.data.answers.length > 0) return false;
  return fromOperator || (m.status === 'reply' && !viewer.replyToMe);
}

export class PinnedObligations {
  constructor(private readonly db: HubDb, private readonly threads: ThreadState) {}

  /** The rows pinned for `viewer` across its channels, in seq order per channel. */
  of(viewer: string): StoredMessage[] {
    const pinned: StoredMessage[] = [];
    for (const channel of this.db.channelsOf(viewer)) {
      for (const { value: m } of this.db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
        if (m.retracted_at !== null || m.sender === viewer) continue;
        if (SETTLING_STATUSES.has(m.status) ? this.openPinned(m, viewer) : this.debtPinned(m, viewer)) pinned.push(m);
      }
    }
    return pinned;
  }

  private openPinned(m: StoredMessage, viewer: string): boolean {
    const replies = this.threads.replies(m);
    if (this.threads.closed(m, replies)) return false;
    const replied = replies.some((r) => r.sender === viewer);
    const addressees = this.threads.named(m).filter((s) => s !== m.sender);
    if (addressees.includes(viewer)) {
      if (replied) return false;
      // Named only by asks: released once no pending ask names the viewer any more.
      return m.to.includes(viewer) || this.threads.pendingAsks(m, replies).some((id) => this.db.asks.get([m.channel, id])?.to.includes(viewer));
    }
    if (addressees.some((s) => this.available(s, m.channel))) return false;
    const read = this.db.reads.doesExist([viewer, m.id]) || (replied && !m.critical);
    return !read;
  }

  private debtPinned(m: StoredMessage, viewer: string): boolean {
    const parent = m.reply_to ? this.db.messageById(m.reply_to) : undefined;
    const fromOperator = this.threads.isOperator(m.sender);
    // The reporting delegate also owes the operators' unaddressed lines.
    const toMe = m.to.includes(viewer) || (fromOperator && !m.to.length && this.threads.isReportingDelegate(viewer, m.channel));
    if (!isDirectiveDebt(m, { toMe, replyToMe: parent?.sender === viewer }, fromOperator)) return false;
    const replies = this.threads.replies(m);
    return !replies.some((r) => r.sender === viewer) && !this.threads.authoritativelyClosed(m, replies);
  }

  /** A seat that can still answer here: a current member, not blocked from the hub. */
  private available(seat: string, channel: string): boolean {
    if (!this.db.isMember(channel, seat)) return false;
    const block = this.db.blocks.get(['hub', seat]);
    return !block || (block.expires_at !== null && block.expires_at <= nowSeconds());
  }
}
