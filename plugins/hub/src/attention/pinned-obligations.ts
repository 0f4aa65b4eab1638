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

  /**
   * Judges the rows of one inbox computation for `viewer`: whether a live row of one of its
   * channels is pinned. Who is an operator and where the viewer reports are remembered for this
   * pass only, since every row of every channel is asked about.
   */
  forViewer(viewer: string): (m: StoredMessage) => boolean {
    const operators = new Map<string, boolean>();
    const reports = new Map<string, boolean>();
    const isOperator = (seat: string) => memo(operators, seat, () => this.threads.isOperator(seat));
    const reportsIn = (channel: string) => memo(reports, channel, () => this.threads.isReportingDelegate(viewer, channel));
    return (m) => {
      if (m.retracted_at !== null || m.sender === viewer) return false;
      if (SETTLING_STATUSES.has(m.status)) return this.openPinned(m, viewer);
      // Cheap exits first: most rows are neither addressed to the viewer nor an operator's line to its reporter.
      if (m.kind !== 'message' || (m.status !== 'reply' && m.status !== 'fyi')) return false;
      const fromOperator = isOperator(m.sender);
      const toMe = m.to.includes(viewer) || (!m.to.length && fromOperator && reportsIn(m.channel));
      return toMe && this.debtPinned(m, viewer, fromOperator);
    };
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

  /** A row addressed to the viewer (or an operator's unaddressed line to its reporter): a debt still owed? */
  private debtPinned(m: StoredMessage, viewer: string, fromOperator: boolean): boolean {
    const parent = m.reply_to ? this.db.messageById(m.reply_to) : undefined;
    if (!isDirectiveDebt(m, { toMe: true, replyToMe: parent?.sender === viewer }, fromOperator)) return false;
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

function memo<K, V>(cache: Map<K, V>, key: K, compute: () => V): V {
  let value = cache.get(key);
  if (value === undefined) cache.set(key, (value = compute()));
  return value;
}
