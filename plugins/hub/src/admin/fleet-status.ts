/**
 * The fleet status (reference §8.2 `GET /admin/status`, `GET /status`): is the fleet of seats alive
 * (the fleet snapshot), and per seat, is it reachable, what does it owe and has it been refused.
 * Counts and ages only, never message bodies.
 */
import type { OwedReporter } from '../attention/owed-report.js';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord } from '../records.js';
import type { Refusal, RefusedSends } from './refused-sends.js';

/** A reception poll (`X-Agora-Reception`) at most this old keeps a seat's reception `armed`. */
const RECEPTION_ARMED_SECONDS = 2700;
/** Seats seen within this window count toward the fleet. */
const ELIGIBLE_WINDOW_SECONDS = 6 * 3600;
const MIN_ELIGIBLE = 3;
const LIVE_STATES = new Set(['idle', 'working', 'active']);
const CLOSED_CLAIM = new Set(['done', 'released', 'closed']);

export type Reception = 'armed' | 'stale' | 'unknown';
export type SilenceClass = 'dead' | 'deaf' | 'unseen' | 'seen-and-ignored';

export interface FleetSnapshot {
  eligible: number;
  live: number;
  live_fraction: number;
  collapsed: boolean;
  dark_episode: boolean;
  dark_seconds: number;
  open_claims: number;
  min_eligible: number;
}

export interface AgentStatusRow {
  agent_id: string;
  state: string;
  reception: Reception;
  reception_age_minutes: number | null;
  deaf: boolean;
  unread: number;
  pending_obligations: number;
  oldest_pending_minutes: number | null;
  owed_answers: number;
  escalated_owed: number;
  owed_consumption: number;
  acked_unanswered: number;
  silence_class: SilenceClass | null;
  refused_sends_1h: number;
  last_refusal?: Refusal | null;
}

export interface FleetStatusReport {
  fleet: FleetSnapshot;
  agents: AgentStatusRow[];
}

export interface FleetStatusDeps {
  owed: OwedReporter;
  store: ChannelStore;
  refusals: RefusedSends;
  /** When the seat last polled with `X-Agora-Reception` (epoch seconds), or null if it never did. */
  lastReception: (agent: string) => number | null;
}

const minutes = (seconds: number) => Math.round(seconds / 6) / 10;

export class FleetStatus {
  /** When the fleet was first seen collapsed in the current episode (in memory, like presence). */
  private darkSince: number | null = null;

  constructor(private readonly hub: Hub, private readonly deps: FleetStatusDeps) {}

  /** `omitRefusals`: a reporting delegate's view has no `last_refusal` key. */
  report(omitRefusals: boolean): FleetStatusReport {
    const now = nowSeconds();
    const seats = this.seats();
    return { fleet: this.snapshot(seats, now), agents: seats.map((s) => this.row(s, now, omitRefusals)) };
  }

  /** Every registered seat that is not retired or deleted. */
  seats(): AgentRecord[] {
    return this.hub.agents.all().filter((a) => a.retired_at === null && !a.deleted && a.id !== 'hub');
  }

  /** Why a seat with escalated debts is silent (null without any): the reference's four classes. */
  silenceClass(seat: AgentRecord, escalated: Array<{ channel: string; seq: number }>, now: number): SilenceClass | null {
    if (!escalated.length) return null;
    if (this.hub.presence.of(seat.id).state === 'offline') return 'dead';
    if (this.reception(seat.id, now).reception === 'stale') return 'deaf';
    if (escalated.some((r) => r.seq > (this.hub.db.cursors.get([seat.id, r.channel]) ?? 0))) return 'unseen';
    return 'seen-and-ignored';
  }

  reception(agent: string, now: number): { reception: Reception; age: number | null } {
    const at = this.deps.lastReception(agent);
    if (at === null) return { reception: 'unknown', age: null };
    return { reception: now - at <= RECEPTION_ARMED_SECONDS ? 'armed' : 'stale', age: now - at };
  }

  private isLive(agent: string, now: number): boolean {
    return this.reception(agent, now).reception === 'armed' || LIVE_STATES.has(this.hub.presence.of(agent).state);
  }

  snapshot(seats: AgentRecord[], now: number): FleetSnapshot {
    const eligible = seats.filter((s) => {
      if (s.operator || this.hub.auth.refusalFor(s)) return false;
      if (this.isLive(s.id, now)) return true;
      const seen = Math.max(this.hub.presence.of(s.id).updated_at ?? 0, this.deps.lastReception(s.id) ?? 0);
      return now - seen <= ELIGIBLE_WINDOW_SECONDS;
    });
    const live = eligible.filter((s) => this.isLive(s.id, now)).length;
    const collapsed = eligible.length > 0 && (live === 0 || live / eligible.length < 0.5);
    if (!collapsed) this.darkSince = null;
    else this.darkSince ??= now;
    return {
      eligible: eligible.length, live, live_fraction: eligible.length ? Math.round((live / eligible.length) * 1000) / 1000 : 0, collapsed,
      dark_episode: this.darkSince !== null, dark_seconds: this.darkSince === null ? 0 : Math.floor(now - this.darkSince),
      open_claims: this.openClaims(), min_eligible: MIN_ELIGIBLE,
    };
  }

  private openClaims(): number {
    let open = 0;
    for (const { value: c } of this.hub.db.channels.getRange()) {
      if (c.is_dm) continue;
      for (const e of this.deps.store.withPrefix(c.name, 'claim:')) {
        const v = (typeof e.value === 'object' && e.value !== null ? e.value : {}) as { done?: unknown; status?: unknown };
        if (v.done !== true && !CLOSED_CLAIM.has(String(v.status ?? ''))) open++;
      }
    }
    return open;
  }

  private row(seat: AgentRecord, now: number, omitRefusals: boolean): AgentStatusRow {
    const state = this.hub.presence.of(seat.id).state;
    const { reception, age } = this.reception(seat.id, now);
    const inbox = this.hub.reading.inbox(seat.id);
    const pending = inbox.filter((e) => e.status === 'open' || e.status === 'blocked' || e.critical);
    const owed = this.deps.owed.report(seat);
    const cursor = (channel: string) => this.hub.db.cursors.get([seat.id, channel]) ?? 0;
    const escalated = owed.to_answer.filter((r) => r.escalated);
    const refused = this.deps.refusals.of(seat.id, 3600, now);
    const row: AgentStatusRow = {
      agent_id: seat.id, state, reception, reception_age_minutes: age === null ? null : minutes(age),
      deaf: reception === 'stale' && pending.length > 0,
      unread: inbox.length, pending_obligations: pending.length,
      oldest_pending_minutes: pending.length ? minutes(now - Math.min(...pending.map((e) => e.created_at))) : null,
      owed_answers: owed.to_answer.length, escalated_owed: escalated.length, owed_consumption: owed.to_consume.length,
      acked_unanswered: owed.to_answer.filter((r) => cursor(r.channel) >= r.seq).length,
      silence_class: this.silenceClass(seat, escalated, now), refused_sends_1h: refused.count,
    };
    if (!omitRefusals) row.last_refusal = refused.last;
    return row;
  }
}
