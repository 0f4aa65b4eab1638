/**
 * `GET /board` (reference §8.3): one seat's work across its channels. Open rows that wait on the
 * seat (`pending_on_me`) or on nobody in particular (`proposals`), its approval queue
 * (`queue:<seat>:*` store rows), claims in progress or awaiting review, and the newest decisions.
 * Every list is capped by `reads.boardMaxRows` (decisions by 20, as on the reference); the counts
 * stay exact.
 */
import { claimOwner, claims, isDone, type Claim } from '../content/board/claims.js';
import type { HubContent } from '../content/hub-content.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord, StoredMessage } from '../records.js';

const OPEN = new Set(['open', 'blocked']);
const Q_MAX = 120;
const DONE_SHOWN = 20;
const DEFAULT_SLA_MINUTES = 60;

export interface BoardRow {
  channel: string;
  seq: number;
  id: string;
  sender: string;
  q: string;
  since: number;
  age_minutes: number;
  pending_asks: string[];
  escalated: boolean;
}

/** The title, or the body cut to 120 characters with "…". */
function question(m: StoredMessage): string {
  if (m.title) return m.title;
  const points = [...m.body];
  return points.length > Q_MAX ? `${points.slice(0, Q_MAX).join('')}…` : m.body;
}

export class SeatBoard {
  constructor(private readonly hub: Hub, private readonly content: HubContent, private readonly maxRows: number) {}

  report(viewer: AgentRecord) {
    const now = nowSeconds();
    const pendingOnMe: BoardRow[] = [];
    const proposals: BoardRow[] = [];
    const queue: Array<Record<string, unknown>> = [];
    const inProgress: Array<ReturnType<typeof claimRow>> = [];
    const pendingReview: Array<ReturnType<typeof claimRow> & { review: string }> = [];
    const done: Array<{ channel: string; key: string; version: number; updated_by: string; updated_at: number }> = [];
    for (const name of this.hub.db.channelsOf(viewer.id)) {
      const c = this.hub.channels.get(name);
      if (!c) continue;
      const sla = this.content.meta(name)?.response_sla_minutes ?? DEFAULT_SLA_MINUTES;
      for (const m of this.openRows(name, viewer)) {
        const { row, named } = this.row(m, now, sla);
        if (c.is_dm || ((m.to.includes(viewer.id) || named.has(viewer.id)) && !this.released(m, viewer))) pendingOnMe.push(row);
        else if (m.to.length === 0 && named.size === 0) proposals.push(row);
      }
      for (const entry of this.content.store.withPrefix(name, `queue:${viewer.id}:`)) {
        const value = entry.value;
        if (typeof value === 'object' && value !== null && !Array.isArray(value) && !('decided' in value)) {
          queue.push({ channel: name, key: entry.key, ...value, updated_by: entry.updated_by });
        }
      }
      for (const claim of claims(this.content.store, name)) {
        if (!isDone(claim)) inProgress.push(claimRow(c, claim));
        else if (isReviewed(claim) && !this.content.store.get(name, `decision:${claim.task}`)) {
          pendingReview.push({ ...claimRow(c, claim), review: String(claim.value.review) });
        }
      }
      for (const d of this.content.store.withPrefix(name, 'decision:')) {
        done.push({ channel: name, key: d.key, version: d.version, updated_by: d.updated_by, updated_at: d.updated_at });
      }
    }
    pendingOnMe.sort((a, b) => Number(b.escalated) - Number(a.escalated) || a.since - b.since);
    proposals.sort((a, b) => a.since - b.since);
    done.sort((a, b) => b.updated_at - a.updated_at);
    const cap = <T>(rows: T[]) => rows.slice(0, this.maxRows);
    const shown = done.slice(0, DONE_SHOWN);
    return {
      viewer: viewer.id,
      pending_on_me: cap(pendingOnMe), queue: cap(queue), proposals: cap(proposals), in_progress: cap(inProgress), pending_review: cap(pendingReview), done: shown,
      counts: {
        pending_on_me: pendingOnMe.length, queue: queue.length, proposals: proposals.length, in_progress: inProgress.length,
        pending_review: pendingReview.length, done_shown: shown.length, done_total: done.length,
      },
    };
  }

  /** Live open/blocked message rows of a channel, not the viewer's own and not closed. */
  private *openRows(channel: string, viewer: AgentRecord): Generator<StoredMessage> {
    for (const m of this.hub.db.questionsOf(channel)) {
      if (m.kind !== 'message' || m.retracted_at !== null || !OPEN.has(m.status) || m.sender === viewer.id) continue;
      if (this.hub.facts.decorate(m, viewer.id).closed) continue;
      yield m;
    }
  }

  private row(m: StoredMessage, now: number, slaMinutes: number): { row: BoardRow; named: Set<string> } {
    const named = new Set<string>();
    for (const id of this.hub.facts.askIds(m)) for (const seat of this.hub.db.asks.get([m.channel, id])?.to ?? []) named.add(seat);
    const ageMinutes = Math.max(0, Math.floor((now - m.created_at) / 60));
    return {
      named,
      row: {
        channel: m.channel, seq: m.seq, id: m.id, sender: m.sender, q: question(m), since: m.created_at, age_minutes: ageMinutes,
        pending_asks: this.hub.facts.pendingAsks(m), escalated: ageMinutes > slaMinutes,
      },
    };
  }

  /** An addressee is released when every ask naming it is answered, none is left to anyone, and it has replied. */
  private released(m: StoredMessage, viewer: AgentRecord): boolean {
    const pending = this.hub.facts.pendingAsks(m).map((id) => this.hub.db.asks.get([m.channel, id]));
    if (this.hub.facts.askIds(m).length === 0) return false;
    if (pending.some((a) => a && (a.to.length === 0 || a.to.includes(viewer.id)))) return false;
    return this.hub.facts.replies(m).some((r) => r.sender === viewer.id);
  }
}

function isReviewed(claim: Claim): boolean {
  return claim.value.review === 'operator' || claim.value.review === 'delegate';
}

function claimRow(c: ChannelRecord, claim: Claim) {
  return { channel: c.name, task: claim.task, owner: claimOwner(claim), updated_by: claim.entry.updated_by, updated_at: claim.entry.updated_at };
}
