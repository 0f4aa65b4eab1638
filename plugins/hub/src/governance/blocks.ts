/**
 * Blocks: a kick (timed, at most 7 days) or a ban (no end) of one seat, in one room or hub-wide.
 * A room block removes the seat, withdraws its votes and ratings there and posts a notice; the
 * join route then refuses it. A hub block is enforced by seat authentication (every call and the
 * socket answer 403); a ban also ends the seat's delegation, and its live sockets are closed.
 * Operators cannot be blocked; room owners cannot be blocked from their room; delegates only by
 * an operator.
 */
import type { BlockOptions } from '@keel/hub-client';
import { prefixRange, badRequest, forbidden, notFound } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { systemNotice } from '../messages/hub-writer.js';
import * as notices from '../notices.js';
import type { AgentRecord, BlockRecord, ChannelRecord } from '../records.js';
import { capText, sanitize } from '../text-rules.js';
import { mayModerateRoom, ownerLabel, ownsRoom } from './room-authority.js';

export const HUB_SCOPE = 'hub';
const MAX_KICK_SECONDS = 7 * 86400;

/** A block request: the client's options and the seat it is for. */
export interface BlockInput extends BlockOptions {
  agent: string;
}

function isActive(b: BlockRecord | undefined, now = nowSeconds()): b is BlockRecord {
  return b !== undefined && (b.expires_at === null || b.expires_at > now);
}

export class Blocks {
  constructor(private readonly hub: Hub) {}

  /** The block in force for `agent` in `scope` (a channel name or `hub`), if any. */
  active(scope: string, agent: string): BlockRecord | undefined {
    const b = this.hub.db.blocks.get([scope, agent]);
    return isActive(b) ? b : undefined;
  }

  /** Blocks in force, newest first, optionally of one scope. */
  list(scope?: string): BlockRecord[] {
    const now = nowSeconds();
    const range = scope === undefined ? {} : prefixRange([scope]);
    return [...this.hub.db.blocks.getRange(range)].map((e) => e.value).filter((b) => isActive(b, now)).sort((a, b) => b.imposed_at - a.imposed_at);
  }

  /** 403 unless `seat` may kick and ban in `c`. */
  requireModerator(c: ChannelRecord, seat: AgentRecord): void {
    if (!mayModerateRoom(c, seat, this.hub.delegations)) {
      throw forbidden(`blocking in '${c.name}' needs the channel owner (${ownerLabel(c)}), an operator, or a delegate holding 'moderation'`);
    }
  }

  /** 403 unless `seat` may kick and ban hub-wide. */
  requireHubModerator(seat: AgentRecord): void {
    if (!seat.operator && !this.hub.delegations.hasPower(seat.id, 'moderation')) {
      throw forbidden("hub-scope kicks/bans need an operator or a delegate holding 'moderation'");
    }
  }

  async blockInRoom(c: ChannelRecord, actor: AgentRecord, input: BlockInput): Promise<BlockRecord> {
    if (c.is_dm) throw badRequest('direct channels have no moderation — block the seat hub-wide, or simply stop answering');
    this.requireModerator(c, actor);
    this.hub.poster.checkOpen(c);
    const target = this.checkTarget(actor, input);
    if (ownsRoom(c, target)) throw forbidden(`'${target.id}' owns '${c.name}' — a room owner cannot be kicked or banned from it`);
    const block = this.record(c.name, actor, target, input);
    await this.hub.writer.run((w) => {
      this.hub.db.blocks.put([c.name, target.id], block);
      if (this.hub.db.isMember(c.name, target.id)) this.hub.channels.removeMemberIn(c.name, target.id);
      this.withdrawVotesIn(c.name, target.id);
      w.insert(systemNotice(c.name, notices.roomBlocked(target.id, actor.id, block.expires_at, block.reason), block.imposed_at));
    });
    return block;
  }

  async blockHub(actor: AgentRecord, input: BlockInput): Promise<BlockRecord> {
    this.requireHubModerator(actor);
    const target = this.checkTarget(actor, input);
    const block = this.record(HUB_SCOPE, actor, target, input);
    await this.hub.db.transaction(() => {
      this.hub.db.blocks.put([HUB_SCOPE, target.id], block);
      if (block.expires_at === null) this.hub.delegations.revokeIn(target.id);
    });
    this.hub.severSockets(target.id);
    return block;
  }

  /** Lifts a block; `lifted` says whether one was in force. */
  async lift(scope: string, agent: string): Promise<{ agent_id: string; scope: string; lifted: boolean }> {
    const lifted = this.active(scope, agent) !== undefined;
    const room = scope === HUB_SCOPE ? undefined : this.hub.db.channels.get(scope);
    await this.hub.writer.run((w) => {
      this.hub.db.blocks.remove([scope, agent]);
      // The room hears that the seat may come back (a hub block has no room to tell).
      if (lifted && room) w.insert(systemNotice(room.name, notices.roomBlockLifted(agent), nowSeconds()));
    });
    return { agent_id: agent, scope, lifted };
  }

  private checkTarget(actor: AgentRecord, input: BlockInput): AgentRecord {
    if (input.agent === actor.id) throw badRequest('you cannot block yourself');
    const target = this.hub.agents.live(input.agent);
    if (!target) throw notFound(`agent '${input.agent}' is not registered`);
    if (target.operator) throw forbidden('operators cannot be kicked or banned (lifecycle safety)');
    if (!actor.operator && this.hub.delegations.isDelegate(target.id)) {
      throw forbidden(`'${target.id}' holds a delegation — only an operator can kick or ban a delegate`);
    }
    return target;
  }

  private record(scope: string, actor: AgentRecord, target: AgentRecord, input: BlockInput): BlockRecord {
    const seconds = input.seconds ?? null;
    if (seconds !== null && !(seconds > 0 && seconds <= MAX_KICK_SECONDS)) {
      throw badRequest(`seconds must be in (0, ${MAX_KICK_SECONDS}] for a timed kick (at most 7 days) — omit it, or send null, for a ban`);
    }
    const now = nowSeconds();
    return {
      scope, agent_id: target.id, imposed_by: actor.id, imposed_at: now, expires_at: seconds === null ? null : now + seconds,
      reason: capText(sanitize(input.reason ?? ''), 200, 'reason'),
    };
  }

  /** Inside a write: the seat's message ratings in the channel go, and whatever `onLeave` cleans (votes). */
  private withdrawVotesIn(channel: string, agent: string): void {
    for (const { key, value } of this.hub.db.ratings.getRange(prefixRange([channel]))) {
      if (value.rater === agent) this.hub.db.ratings.remove(key);
    }
    for (const hook of this.hub.channels.onLeave) hook(channel, agent);
  }
}
