/**
 * Whether a thread is closed (reference §8.1 B1 "Closed"): discharged, or authoritatively resolved.
 * The inbox's pinned obligations and the digest's `decided` list both judge threads by it.
 *
 * - Authoritative close: a live `resolved` reply from the asker, an operator, or a ruling delegate
 *   of the channel (a live grant holding `ruling` or `operational` that reaches it); on an
 *   operator's message also the reporting delegate's, with `data.settled_by` and evidence.
 * - Discharge with asks: no ask pending (declines count: they discharge an ask; an ask naming
 *   several seats waits for every one of them); on an operator's message the operator-settled
 *   test must pass too.
 * - Discharge without asks: an operator's message by the operator-settled test; a hub `system`
 *   row with `to` by any reply from an addressee; a peer's addressed message never; a peer's
 *   unaddressed message by any reply from someone other than the asker.
 *
 * A retracted reply never closes nor answers (its data is gone), but its sender and `reply_to`
 * survive, so it counts wherever "any reply" is the rule.
 */
import type { Delegations } from '../governance/delegations.js';
import type { MessageFacts } from '../messages/message-views.js';
import type { StoredMessage } from '../records.js';
import type { HubDb } from '../store/hub-db.js';

export class ThreadState {
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts, private readonly delegations: Delegations) {}

  /** Direct replies of a message, retracted ones included, oldest first. */
  replies(m: StoredMessage): StoredMessage[] {
    const out: StoredMessage[] = [];
    for (const key of this.db.replies.getKeys({ start: [m.channel, m.id, 0], end: [m.channel, m.id, Number.MAX_SAFE_INTEGER] })) {
      const r = this.db.messages.get([m.channel, key[2]]);
      if (r) out.push(r);
    }
    return out;
  }

  isOperator(seat: string): boolean {
    return this.db.agents.get(seat)?.operator === true;
  }

  closed(m: StoredMessage, replies = this.replies(m)): boolean {
    return this.authoritativelyClosed(m, replies) || this.discharged(m, replies);
  }

  /**
   * A live `resolved` reply from the asker, an operator or a ruling delegate of the channel; on an
   * operator's message also from the reporting delegate, saying who settled it and citing evidence.
   */
  authoritativelyClosed(m: StoredMessage, replies = this.replies(m)): boolean {
    return replies.some((r) => r.retracted_at === null && r.status === 'resolved' && (
      r.sender === m.sender || this.isOperator(r.sender)
      || this.delegations.hasPower(r.sender, 'ruling', m.channel) || this.delegations.hasPower(r.sender, 'operational', m.channel)
      || (this.isOperator(m.sender) && this.isReportingDelegate(r.sender, m.channel) && Boolean(r.data?.settled_by) && hasEvidence(r))));
  }

  isReportingDelegate(seat: string, channel: string): boolean {
    return this.delegations.hasPower(seat, 'reporting', channel);
  }

  /**
   * Ask ids still pending: those the ask table holds unanswered, and those naming several seats that
   * not every named seat has answered yet (by a live direct reply; a decline is an answer here).
   */
  pendingAsks(m: StoredMessage, replies = this.replies(m)): string[] {
    const pending = new Set(this.facts.pendingAsks(m));
    for (const id of this.facts.askIds(m)) {
      const named = this.db.asks.get([m.channel, id])?.to ?? [];
      if (pending.has(id) || named.length < 2) continue;
      const answered = new Set(replies.filter((r) => r.retracted_at === null && stringsIn(r.data?.answers).includes(id)).map((r) => r.sender));
      if (named.some((seat) => seat !== m.sender && !answered.has(seat))) pending.add(id);
    }
    return this.facts.askIds(m).filter((id) => pending.has(id));
  }

  discharged(m: StoredMessage, replies = this.replies(m)): boolean {
    const fromOperator = this.isOperator(m.sender);
    if (this.facts.askIds(m).length) return this.pendingAsks(m, replies).length === 0 && (!fromOperator || this.operatorSettled(m, replies));
    if (fromOperator) return this.operatorSettled(m, replies);
    if (m.kind === 'system') return m.to.length > 0 && replies.some((r) => m.to.includes(r.sender));
    if (m.to.length) return false;
    return replies.some((r) => r.sender !== m.sender);
  }

  /**
   * An operator's message is settled by any reply from an operator, or by a live `resolved` reply
   * citing evidence from the reporting delegate or from a seat the message named.
   */
  private operatorSettled(m: StoredMessage, replies: StoredMessage[]): boolean {
    if (replies.some((r) => this.isOperator(r.sender))) return true;
    return replies.some((r) => r.retracted_at === null && r.status === 'resolved' && hasEvidence(r)
      && (this.named(m).includes(r.sender) || this.isReportingDelegate(r.sender, m.channel)));
  }

  /** The seats a message names: its `to` and every ask's `to`. */
  named(m: StoredMessage): string[] {
    const seats = new Set(m.to);
    for (const id of this.facts.askIds(m)) for (const s of this.db.asks.get([m.channel, id])?.to ?? []) seats.add(s);
    return [...seats];
  }
}

function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function hasEvidence(r: StoredMessage): boolean {
  const evidence = r.data?.evidence;
  return Array.isArray(evidence) ? evidence.length > 0 : typeof evidence === 'string' && evidence.length > 0;
}
