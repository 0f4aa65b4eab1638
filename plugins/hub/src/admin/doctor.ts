/**
 * The doctor (reference §8.2 `GET /admin/doctor`): one report an operator reads to see why work is
 * stuck — the hub's state, per seat whether it is reachable, did work, owes, works on a claim or is
 * held up, and the open questions operators asked with who still owes them. Counts, ages, titles and
 * declared next steps only: never a message body.
 *
 * This hub runs no watchdog sweeps, no timed votes, no `hub-alerts` room and no notify files, so
 * those parts of the reference's report are null, zero or false here (documented in the README).
 */
import { askAddressees } from '../attention/ask-addressees.js';
import type { OwedReporter } from '../attention/owed-report.js';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, StoredMessage } from '../records.js';
import type { FleetSnapshot, FleetStatus, SilenceClass } from './fleet-status.js';
import type { RefusedSends } from './refused-sends.js';

export const DOCTOR_LOOKBACK_SECONDS = 86400;
/** A claim untouched this long is stale. */
const STALE_CLAIM_SECONDS = DOCTOR_LOOKBACK_SECONDS;
const CLOSED_CLAIM = new Set(['done', 'released', 'closed']);
const PARKED_CLAIM = new Set(['parked', 'blocked', 'waiting']);

/** What this hub cannot see, however healthy the report looks. */
const HUB_CANNOT_SEE = [
  'whether a seat read what it was served: the hub sees reads, acks and cursors, not understanding',
  "work done outside the hub: only posts, store writes and file writes count as a seat's work",
  'a client that is running but not polling: reception shows only when the seat polls /owed with X-Agora-Reception',
  'why a seat stopped: the hub sees silence and refusals, not the crash, the quota or the human behind it',
];

const ago = (now: number, at: number | null | undefined) => (at === null || at === undefined ? null : Math.round((now - at) * 10) / 10);
const noSweep = { last_run_seconds: null, took_seconds: null, actions: null };

interface Claim {
  channel: string;
  key: string;
  owner: string | null;
  status: string;
  next_step: string;
  updated_at: number;
  done: boolean;
}

type HeldUp =
  | { kind: 'hub-block'; until: number | null; seconds_left: number | null }
  | { kind: 'retired'; at: number }
  | { kind: 'hub-paused'; since: number }
  | { kind: 'send-refused'; count: number; last_code: number; last_seconds_ago: number | null }
  | { kind: 'claim-parked'; ref: string; status: string; idle_seconds: number | null };

export interface DoctorDeps {
  fleet: FleetStatus;
  owed: OwedReporter;
  store: ChannelStore;
  refusals: RefusedSends;
  /** The charters a seat has not read in their current version. */
  charterDebts: (seat: AgentRecord) => unknown[];
}

export interface DoctorReport {
  now: number;
  scope: string;
  lookback_seconds: number;
  hub: Record<string, unknown> & { fleet: FleetSnapshot };
  seats: Array<Record<string, unknown> & { agent_id: string; silence_class: SilenceClass | null }>;
  requests: Array<Record<string, unknown>>;
  hub_cannot_see: string[];
}

export class Doctor {
  constructor(private readonly hub: Hub, private readonly deps: DoctorDeps) {}

  /** The whole hub, or one seat when `agent` is given (no existence check, as in the reference). */
  report(agent: string): DoctorReport {
    const now = nowSeconds();
    const claims = this.claims();
    const live = this.deps.fleet.seats();
    const seats = agent ? [this.hub.agents.get(agent) ?? this.unknownSeat(agent)] : this.hub.agents.all().filter((a) => a.retired_at === null && !a.deleted && a.id !== 'hub');
    const pause = this.hub.pause.state();
    const open = claims.filter((c) => !c.done);
    const work = this.workIndex(now);
    return {
      now, scope: agent || 'all seats', lookback_seconds: DOCTOR_LOOKBACK_SECONDS,
      hub: {
        paused: pause.state === 'paused' ? { since: pause.since, reason: pause.reason, by: pause.by } : null,
        sweeps: { dark: noSweep, vote: noSweep },
        votes_past_deadline: 0, open_hub_alerts: 0, unclosed_silence_alerts: 0,
        stale_claims: open.filter((c) => now - c.updated_at > STALE_CLAIM_SECONDS).length,
        live_claims: open.filter((c) => now - c.updated_at <= STALE_CLAIM_SECONDS).length,
        fleet: this.deps.fleet.snapshot(live, now),
        notify_files: false, directive_epoch: 0,
      },
      seats: seats.map((s) => this.seat(s, claims, work, now)),
      requests: this.requests(claims, work, now).filter((r) => !agent || r.from === agent || r.owed_by.includes(agent)),
      hub_cannot_see: HUB_CANNOT_SEE,
    };
  }

  /** A seat the registry does not know reads as an empty one (the reference does not 404). */
  private unknownSeat(id: string): AgentRecord {
    return { id, name: id, about: '', mission: '', operator: false, created_at: 0, key_hash: '', retired_at: null, retire_reason: '', deleted: false };
  }

  private claims(): Claim[] {
    const out: Claim[] = [];
    for (const { value: c } of this.hub.db.channels.getRange()) {
      if (c.is_dm) continue;
      for (const e of this.deps.store.withPrefix(c.name, 'claim:')) {
        const v = (typeof e.value === 'object' && e.value !== null ? e.value : {}) as Record<string, unknown>;
        const status = typeof v.status === 'string' ? v.status : '';
        out.push({
          channel: c.name, key: e.key, owner: typeof v.owner === 'string' ? v.owner : e.updated_by, status,
          next_step: typeof v.next_step === 'string' ? v.next_step : '', updated_at: e.updated_at, done: v.done === true || CLOSED_CLAIM.has(status),
        });
      }
    }
    return out;
  }

  /**
   * Each seat's newest authored `message` row and newest store write within the lookback, in one pass
   * over the window of every room (a per-seat scan would cost seats × rooms × window).
   */
  private workIndex(now: number): Map<string, { post: number | null; write: number | null }> {
    const since = now - DOCTOR_LOOKBACK_SECONDS;
    const index = new Map<string, { post: number | null; write: number | null }>();
    const entry = (seat: string) => index.get(seat) ?? index.set(seat, { post: null, write: null }).get(seat)!;
    for (const { value: c } of this.hub.db.channels.getRange()) {
      for (const { value } of this.hub.db.messages.getRange({ start: [c.name, Number.MAX_SAFE_INTEGER], end: [c.name, 0], reverse: true })) {
        if (value.created_at < since) break;
        if (value.kind !== 'message') continue;
        const e = entry(value.sender);
        e.post = Math.max(e.post ?? 0, value.created_at);
      }
      for (const row of this.deps.store.keys(c.name)) {
        if (row.updated_at < since) continue;
        const e = entry(row.updated_by);
        e.write = Math.max(e.write ?? 0, row.updated_at);
      }
    }
    return index;
  }

  private seat(seat: AgentRecord, claims: Claim[], work: ReturnType<Doctor['workIndex']>, now: number): DoctorReport['seats'][number] {
    const presence = this.hub.presence.of(seat.id);
    const { reception, age } = this.deps.fleet.reception(seat.id, now);
    const { post, write } = work.get(seat.id) ?? { post: null, write: null };
    const lastWork = post === null && write === null ? null : Math.max(post ?? 0, write ?? 0);
    const owed = this.deps.owed.report(seat);
    const escalated = owed.to_answer.filter((r) => r.escalated);
    const cursor = (channel: string) => this.hub.db.cursors.get([seat.id, channel]) ?? 0;
    const oldest = [...owed.to_answer.map((r) => r.created_at), ...owed.to_consume.map((r) => r.answer_created_at), ...owed.to_close.map((r) => r.answered_at)];
    const mine = claims.filter((c) => c.owner === seat.id && !c.done);
    const heldUp: HeldUp[] = [];
    const block = this.hub.db.blocks.get(['hub', seat.id]);
    if (block && (block.expires_at === null || block.expires_at > now)) {
      heldUp.push({ kind: 'hub-block', until: block.expires_at, seconds_left: block.expires_at === null ? null : Math.round(block.expires_at - now) });
    }
    if (seat.retired_at !== null) heldUp.push({ kind: 'retired', at: seat.retired_at });
    const pause = this.hub.pause.state();
    if (pause.state === 'paused' && !seat.operator) heldUp.push({ kind: 'hub-paused', since: pause.since });
    const refused = this.deps.refusals.of(seat.id, DOCTOR_LOOKBACK_SECONDS, now);
    if (refused.count && refused.last) heldUp.push({ kind: 'send-refused', count: refused.count, last_code: refused.last.code, last_seconds_ago: ago(now, refused.last.ts) });
    for (const c of mine.filter((m) => PARKED_CLAIM.has(m.status))) heldUp.push({ kind: 'claim-parked', ref: `${c.channel}:${c.key}`, status: c.status, idle_seconds: ago(now, c.updated_at) });
    return {
      agent_id: seat.id, operator: seat.operator,
      delegate_powers: this.hub.delegations.activeFor(seat.id).flatMap((d) => d.powers),
      reachable: { presence: presence.state, reception, reception_age_seconds: age, last_contact_seconds: ago(now, presence.updated_at) },
      did_work: {
        last_post_seconds: ago(now, post), last_write_seconds: ago(now, write), last_work_seconds: ago(now, lastWork), worked_within_lookback: lastWork !== null,
      },
      owes: {
        to_answer: owed.to_answer.length, escalated: escalated.length, to_consume: owed.to_consume.length, to_close: owed.to_close.length,
        oldest_seconds: oldest.length ? ago(now, Math.min(...oldest)) : null,
        acked_unanswered: owed.to_answer.filter((r) => cursor(r.channel) >= r.seq).length,
        waiting_on_others: owed.waiting_on.length, charters_stale: this.deps.charterDebts(seat).length,
      },
      working_on: mine.map((c) => ({ channel: c.channel, key: c.key, status: c.status, next_step: c.next_step, idle_seconds: ago(now, c.updated_at), next_ping_in_seconds: null })),
      held_up_by: heldUp,
      silence_class: this.deps.fleet.silenceClass(seat, escalated, now),
      episodes: { dark_since: null, deaf_since: null, lurk_since: null },
    };
  }

  /** Open or blocked messages an operator posted within the lookback, oldest first, with who still owes them. */
  private requests(claims: Claim[], work: ReturnType<Doctor['workIndex']>, now: number): Array<Record<string, unknown> & { from: string; owed_by: string[] }> {
    const operators = new Set(this.hub.agents.all().filter((a) => a.operator).map((a) => a.id));
    const since = now - DOCTOR_LOOKBACK_SECONDS;
    const rows: StoredMessage[] = [];
    for (const { value: c } of this.hub.db.channels.getRange()) {
      for (const { value } of this.hub.db.messages.getRange({ start: [c.name, Number.MAX_SAFE_INTEGER], end: [c.name, 0], reverse: true })) {
        if (value.created_at < since) break;
        if (value.kind === 'message' && value.retracted_at === null && (value.status === 'open' || value.status === 'blocked') && operators.has(value.sender)) rows.push(value);
      }
    }
    rows.sort((a, b) => a.created_at - b.created_at);
    return rows.map((m) => {
      const asks = this.hub.facts.askIds(m).map((id) => ({ id, record: this.hub.db.asks.get([m.channel, id]) })).filter((a) => a.record !== undefined);
      const pending = asks.filter((a) => a.record!.answered_by === null);
      const replies = this.hub.facts.replies(m);
      // Who still owes it: the addressees of each pending ask, or, without asks, every named seat that has not replied.
      const waits = pending.length
        ? pending.flatMap((a) => askAddressees(this.hub.db, a.record!, m).map((seat) => ({ ask: a.id, seat })))
        : m.to.filter((seat) => seat !== m.sender && !replies.some((r) => r.sender === seat)).map((seat) => ({ ask: '(unstructured)', seat }));
      const cited = claims.filter((c) => c.key.includes(m.id) || c.next_step.includes(m.id));
      const owners = [...new Set(cited.map((c) => c.owner).filter((o): o is string => o !== null))].sort();
      const ownerWork = owners.map((o) => work.get(o)).flatMap((w) => [w?.post ?? null, w?.write ?? null]).filter((t): t is number => t !== null);
      return {
        id: m.id, channel: m.channel, seq: m.seq, from: m.sender, title: m.title, age_seconds: ago(now, m.created_at),
        pending_asks: pending.length, ask_progress: `${asks.length - pending.length}/${asks.length}`,
        owned_by: owners, owed_by: [...new Set(waits.map((w) => w.seat))].sort(), replied_by: [...new Set(replies.map((r) => r.sender))].sort(),
        owner_last_work_seconds: ownerWork.length ? ago(now, Math.max(...ownerWork)) : null,
        claims: cited.map((c) => ({ key: c.key, owner: c.owner, status: c.status, next_step: c.next_step, idle_seconds: ago(now, c.updated_at), done: c.done })),
        outstanding_asks: waits.map((w) => ({
          asker: m.sender, where: `${m.channel}#${m.seq}`, ask: w.ask, waiting_on: w.seat, state: this.waitState(w.seat, m), age_seconds: ago(now, m.created_at),
        })),
      };
    });
  }

  private waitState(seat: string, m: StoredMessage): 'retired' | 'acked-past-no-reply' | 'not-yet-served' {
    if (this.hub.agents.get(seat)?.retired_at) return 'retired';
    return (this.hub.db.cursors.get([seat, m.channel]) ?? 0) >= m.seq ? 'acked-past-no-reply' : 'not-yet-served';
  }
}
