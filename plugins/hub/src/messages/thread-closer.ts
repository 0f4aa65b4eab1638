/**
 * `POST /channels/{c}/messages/{id}/resolve_thread` (reference §8.5): closes every open row of a
 * thread with a `resolved` reply posted as the caller, through the normal post path (so every post
 * gate applies), and reports the claims that cite the thread without rewriting them. There is no
 * rollback, as on the reference: closers posted before a refusal stand.
 */
import { forbidden, notFound } from '@keel/plugin-sdk';
import { claimField, claimOwner, claimStatus, claims, isSettled } from '../content/board/claims.js';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { Hub } from '../hub.js';
import type { AgentRecord, ChannelRecord, StoredMessage } from '../records.js';

export const THREAD_CLOSED_BODY = 'thread closed: this work is stood down. Stop here and post no further replies on it.';
const OPEN = new Set(['open', 'blocked']);
const STATUS_MAX = 120;

export interface ThreadClosed {
  channel: string;
  root: string;
  closed: string[];
  claims: Array<{ key: string; owner: string; status: string }>;
  truncated: boolean;
}

export class ThreadCloser {
  constructor(private readonly hub: Hub, private readonly store: ChannelStore, private readonly maxRows: number) {}

  async resolve(c: ChannelRecord, id: string, seat: AgentRecord, body: string): Promise<ThreadClosed> {
    const root = this.hub.db.messageById(id);
    if (!root || root.channel !== c.name) throw notFound(`message '${id}' not found in '${c.name}'`);
    const { rows, truncated } = this.trail(root);
    const live = rows.filter((m) => m.kind === 'message' && m.retracted_at === null && OPEN.has(m.status) && this.hub.facts.decorate(m, seat.id).closed !== true);
    const others = live.filter((m) => m.sender !== seat.id);
    if (others.length > 0 && !seat.operator && !this.isRulingDelegate(seat, c)) {
      const askers = [...new Set(others.map((m) => m.sender))].sort().join(', ');
      throw forbidden(
        `closing a thread is the asker's, an operator's, or a ruling delegate's act — this trail has ${others.length} open message(s) asked by other seat(s) (${askers}), so NOTHING was closed. Close your own, or ask an operator or the room's delegate.`,
      );
    }
    const closed: string[] = [];
    for (const m of live) {
      const closer = await this.hub.poster.post(c, seat, { status: 'resolved', reply_to: m.id, title: 'thread closed', body: body || THREAD_CLOSED_BODY });
      closed.push(closer.id);
    }
    return { channel: c.name, root: root.id, closed, claims: this.claimsTouching(c.name, rows), truncated };
  }

  /** The root and all its transitive replies in seq order, at most `maxRows`. */
  private trail(root: StoredMessage): { rows: StoredMessage[]; truncated: boolean } {
    const seen = new Map<string, StoredMessage>([[root.id, root]]);
    const queue = [root];
    let truncated = false;
    while (queue.length > 0 && !truncated) {
      const parent = queue.shift()!;
      for (const key of this.hub.db.replies.getKeys({ start: [root.channel, parent.id, 0], end: [root.channel, parent.id, Number.MAX_SAFE_INTEGER] })) {
        const child = this.hub.db.messages.get([root.channel, key[2]]);
        if (!child || seen.has(child.id)) continue;
        if (seen.size >= this.maxRows) {
          truncated = true;
          break;
        }
        seen.set(child.id, child);
        queue.push(child);
      }
    }
    return { rows: [...seen.values()].sort((a, b) => a.seq - b.seq), truncated };
  }

  /** A live grant of `ruling` or `operational` reaching this room. */
  private isRulingDelegate(seat: AgentRecord, c: ChannelRecord): boolean {
    return this.hub.delegations.hasPower(seat.id, 'ruling', c.name) || this.hub.delegations.hasPower(seat.id, 'operational', c.name);
  }

  /** Unsettled claims whose `source_message_id` mentions a trail id or `<c>#<seq>`. */
  private claimsTouching(channel: string, rows: StoredMessage[]): ThreadClosed['claims'] {
    const refs = rows.flatMap((m) => [m.id, `${channel}#${m.seq}`]);
    return claims(this.store, channel)
      .filter((claim) => !isSettled(claim))
      .filter((claim) => {
        const source = claimField(claim, 'source_message_id');
        return source !== '' && refs.some((ref) => source.includes(ref));
      })
      .map((claim) => ({ key: claim.entry.key, owner: claimOwner(claim), status: [...claimStatus(claim)].slice(0, STATUS_MAX).join('') }));
  }
}
