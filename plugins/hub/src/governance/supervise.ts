/**
 * `GET /supervise` and `GET /channels/{c}/supervise` (reference §8.3): the delegate's view of a
 * stalled room — who is live but holds nothing, which claims are parked and on what, and which of
 * those the caller's own powers can end. It needs a delegation reaching the room: the operator flag
 * is not consulted (an operator with no grant is refused too), and the refusal comes before the
 * membership gate.
 */
import { forbidden } from '@keel/plugin-sdk';
import { claimField, claimOwner, claims, isDone, isParked, type Claim } from '../content/board/claims.js';
import { phaseRows, PHASE_PREFIX } from '../content/board/phases.js';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord } from '../records.js';
import type { Power } from './delegations.js';

const ALERTS = 'hub-alerts';
const NO_GRANT = "supervise() is the delegate's view: it reports what YOU can do about a stalled room, and that answer is meaningless without a delegation. Ask the operator.";
const NO_ROOM = "supervise() is the delegate's view: no delegation of yours reaches any room you are in. Ask the operator.";

export interface BlockedClaim {
  key: string;
  owner: string;
  blocked_on: string;
  needs: string;
  needs_from: string | null;
  idle_minutes: number;
  you_can_act: boolean;
  move: string;
}

/** What a blocker tag asks of a delegate, and which of its powers can end it. */
const MOVES: Record<string, { powers: Power[]; move: (c: Claim, owner: string) => string }> = {
  seat: { powers: ['operational', 'ruling'], move: (c, owner) => `nudge ${claimField(c, 'needs_from') || 'the seat it waits on'} for ${owner}, or reassign '${c.entry.key}'` },
  decision: { powers: ['ruling'], move: (c) => `record the decision it waits on: PUT store decision:${c.task}` },
  untagged: { powers: ['operational'], move: (c, owner) => `ask ${owner} what '${c.entry.key}' waits on (set blocked_on), or reassign it` },
  operator: { powers: [], move: () => 'only the operator can unblock it: it is listed in needs_the_operator' },
  external: { powers: [], move: (_c, owner) => `nothing inside the hub: ${owner} waits on something outside it` },
};

export class Supervise {
  constructor(private readonly hub: Hub, private readonly store: ChannelStore, private readonly scanRows: number) {}

  /** The caller's live powers whose grant reaches `channel` (an unscoped grant counts). */
  powersIn(seat: AgentRecord, channel: string): Power[] {
    const grant = this.hub.delegations.activeFor(seat.id)[0];
    if (!grant || !(grant.scope === '' || grant.scope === '*' || grant.scope === channel)) return [];
    return [...grant.powers].sort();
  }

  channel(seat: AgentRecord, channel: string) {
    const powers = this.powersIn(seat, channel);
    if (powers.length === 0) throw forbidden(NO_GRANT);
    const { channel: c } = this.hub.member(seat, channel);
    return this.report(c, seat, powers);
  }

  all(seat: AgentRecord) {
    const rooms: Record<string, ReturnType<Supervise['report']>> = {};
    for (const name of this.hub.db.channelsOf(seat.id)) {
      const c = this.hub.channels.get(name);
      if (!c || c.is_dm || c.name === ALERTS) continue;
      const powers = this.powersIn(seat, name);
      if (powers.length > 0) rooms[name] = this.report(c, seat, powers);
    }
    const reports = Object.entries(rooms);
    if (reports.length === 0) throw forbidden(NO_ROOM);
    const idle = reports.flatMap(([name, r]) => r.idle_but_live.map((s) => `${name}/${s}`));
    const blocked = reports.flatMap(([name, r]) => r.blocked.map((b) => ({ ...b, channel: name }))).sort((a, b) => b.idle_minutes - a.idle_minutes);
    return {
      rooms,
      idle_but_live: idle,
      blocked,
      needs_the_operator: reports.flatMap(([name, r]) => r.needs_the_operator.map((k) => `${name}/${k}`)),
      summary: `${reports.length} room(s); ${idle.length} seat(s) live and holding nothing; ${blocked.length} blocked`,
    };
  }

  private report(c: ChannelRecord, seat: AgentRecord, powers: Power[]) {
    const now = nowSeconds();
    const roomClaims = claims(this.store, c.name).filter((claim) => !isDone(claim));
    const lastSpoke = this.lastSpoke(c.name);
    const seats = this.hub.db.membersOf(c.name)
      .map((m) => this.hub.agents.get(m.agent_id))
      .filter((a): a is AgentRecord => a !== undefined && !a.operator && a.id !== seat.id)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((a) => {
        const held = roomClaims.filter((claim) => claimOwner(claim) === a.id);
        const presence = this.hub.presence.of(a.id);
        const spoke = lastSpoke.get(a.id);
        const workingOn = held.filter((claim) => !isParked(claim)).map((claim) => claim.entry.key);
        const parked = held.filter(isParked).map((claim) => claim.entry.key);
        return {
          seat: a.id, live: presence.state !== 'offline', mission: a.mission, reception: presence.state, working_on: workingOn, parked,
          holds_nothing: workingOn.length === 0 && parked.length === 0, quiet_minutes: spoke === undefined ? null : Math.max(0, Math.floor((now - spoke) / 60)),
        };
      });
    const blocked: BlockedClaim[] = roomClaims.filter(isParked).map((claim) => {
      const owner = claimOwner(claim);
      const on = claimField(claim, 'blocked_on') || 'untagged';
      const rule = MOVES[on] ?? { powers: [], move: () => `read '${claim.entry.key}': it waits on '${on}'` };
      return {
        key: claim.entry.key, owner, blocked_on: on, needs: claimField(claim, 'needs'), needs_from: claimField(claim, 'needs_from') || null,
        idle_minutes: Math.max(0, Math.floor((now - claim.entry.updated_at) / 60)), you_can_act: rule.powers.some((p) => powers.includes(p)), move: rule.move(claim, owner),
      };
    }).sort((a, b) => b.idle_minutes - a.idle_minutes || a.key.localeCompare(b.key));
    const idle = seats.filter((s) => s.live && s.holds_nothing).map((s) => s.seat);
    const youCan = blocked.filter((b) => b.you_can_act).length;
    return {
      channel: c.name,
      your_powers: powers,
      open_phases: phaseRows(this.store, c.name).filter((p) => p.status !== 'complete').map((p) => ({ key: `${PHASE_PREFIX}${p.key}`, current: p.current, next: p.next, steward: p.steward })),
      seats,
      idle_but_live: idle,
      blocked,
      needs_the_operator: blocked.filter((b) => b.blocked_on === 'operator').map((b) => b.key),
      summary: `${seats.length} seat(s); ${idle.length} live and holding nothing; ${blocked.length} blocked, ${youCan} you can end yourself`,
    };
  }

  /** When each seat last posted in the room, from its newest `scanRows` rows. */
  private lastSpoke(channel: string): Map<string, number> {
    const seen = new Map<string, number>();
    for (const { value: m } of this.hub.db.messages.getRange({ start: [channel, Number.MAX_SAFE_INTEGER], end: [channel, 0], reverse: true, limit: this.scanRows })) {
      if (!seen.has(m.sender)) seen.set(m.sender, m.created_at);
    }
    return seen;
  }
}
