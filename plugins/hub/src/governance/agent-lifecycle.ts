/**
 * The life of a seat after registration, all operator acts: its standing mission, its operator
 * role, retirement (a decommissioned seat: off every room roster, refused at authentication, not a
 * ban), restoration (memberships are not given back) and the hard delete of a retired seat (purged
 * from rosters and rating boards). Ids are never reused: the record of a deleted seat stays as the
 * id's reservation.
 */
import type { MissionRow, RetiredAgentRow } from '@keel/hub-client';
import { badRequest, conflict, forbidden, gone, notFound } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import type { Actor } from '../identity/seat-auth.js';
import { nowSeconds } from '../ids.js';
import { systemNotice } from '../messages/hub-writer.js';
import type { AgentRecord } from '../records.js';
import { capText, sanitize } from '../text-rules.js';

export class AgentLifecycle {
  constructor(private readonly hub: Hub) {}

  /** A registered seat that was not hard-deleted, else 404. */
  private require(id: string): AgentRecord {
    const a = this.hub.agents.live(id);
    if (!a) throw notFound(`agent '${id}' is not registered`);
    return a;
  }

  /** `[{agent_id, mission}]` of every active seat, blanks included. */
  missions(): MissionRow[] {
    return this.hub.agents.all().filter((a) => a.retired_at === null).map((a) => ({ agent_id: a.id, mission: a.mission.trim() }));
  }

  async setMission(actor: Actor, id: string, mission: string): Promise<MissionRow> {
    // The mission is the operator's charge for the seat: a seat never writes its own.
    if (actor.id === id) throw forbidden('a seat cannot set its own mission — it is the standing charge an operator gives it');
    const text = sanitize(mission).trim();
    if (!text) throw badRequest('mission must not be empty — say what the seat is charged with');
    capText(text, 4000, 'mission');
    const agent = this.require(id);
    await this.hub.db.agents.put(id, { ...agent, mission: text });
    return { agent_id: id, mission: text };
  }

  async setRole(actor: Actor, id: string, operator: boolean): Promise<{ agent: string; operator: boolean; changed: boolean; by: string }> {
    if (operator && actor.id === id) throw forbidden('a seat cannot promote itself');
    const agent = this.require(id);
    if (agent.retired_at !== null) throw conflict(`'${id}' has been retired — restore it before changing its role`);
    if (agent.operator === operator) return { agent: id, operator, changed: false, by: actor.id };
    await this.hub.db.transaction(() => {
      const operators = this.hub.agents.all().filter((a) => a.operator && a.retired_at === null);
      if (!operator && actor.id === id && operators.length === 1) {
        throw conflict(`'${id}' is the last operator — promote another seat before stepping down`);
      }
      this.hub.db.agents.put(id, { ...this.hub.db.agents.get(id)!, operator });
    });
    return { agent: id, operator, changed: true, by: actor.id };
  }

  async retire(id: string, reason: string): Promise<{ agent: string; retired: true; reason: string; evicted_from: string[]; already_retired?: true }> {
    const agent = this.require(id);
    if (agent.operator) throw forbidden('operators cannot be retired (lifecycle safety)');
    if (agent.retired_at !== null) return { agent: id, retired: true, reason: agent.retire_reason, evicted_from: [], already_retired: true };
    const why = capText(sanitize(reason).trim(), 200, 'reason');
    const evicted = await this.hub.writer.run((w) => {
      const now = nowSeconds();
      this.hub.db.agents.put(id, { ...this.hub.db.agents.get(id)!, retired_at: now, retire_reason: why });
      this.hub.delegations.revokeIn(id);
      // Rooms lose the seat; a direct channel keeps both peers (the retired-peer gate closes it).
      const rooms = this.hub.db.channelsOf(id).filter((name) => !this.hub.channels.get(name)?.is_dm);
      for (const room of rooms) {
        this.hub.channels.removeMemberIn(room, id);
        w.insert(systemNotice(room, `${id} was retired${why ? ` (${why})` : ''} — a decommissioned seat, not a block`, now));
      }
      return rooms;
    });
    this.hub.severSockets(id);
    return { agent: id, retired: true, reason: why, evicted_from: evicted };
  }

  async unretire(id: string): Promise<{ agent: string; retired: false; already_active?: true }> {
    const record = this.hub.agents.get(id);
    if (!record) throw notFound(`agent '${id}' is not registered`);
    if (record.deleted) throw gone(`'${id}' was deleted — a deleted identity cannot be restored; its id stays reserved`);
    if (record.retired_at === null) return { agent: id, retired: false, already_active: true };
    await this.hub.db.agents.put(id, { ...record, retired_at: null, retire_reason: '' });
    return { agent: id, retired: false };
  }

  /** Retired seats, newest first (deleted ones are gone from this list). */
  retired(): RetiredAgentRow[] {
    return this.hub.agents.all()
      .filter((a) => a.retired_at !== null)
      .map((a) => ({ id: a.id, reason: a.retire_reason, retired_at: a.retired_at! }))
      .sort((a, b) => b.retired_at - a.retired_at);
  }

  async delete(id: string): Promise<{ agent: string; deleted: true; already?: true }> {
    const record = this.hub.agents.get(id);
    if (!record) throw notFound(`agent '${id}' is not registered`);
    if (record.deleted) return { agent: id, deleted: true, already: true };
    if (record.retired_at === null) throw conflict(`'${id}' is still active — retire it first; only a retired identity can be deleted`);
    await this.hub.writer.run(() => {
      this.hub.db.agents.put(id, { ...record, deleted: true });
      this.hub.db.keys.remove(record.key_hash);
      this.hub.delegations.revokeIn(id);
      for (const channel of this.hub.db.channelsOf(id)) this.hub.channels.removeMemberIn(channel, id);
      // Boards: the seat's ratings given and received go, and every channel's onLeave clean-up (votes) runs for it.
      for (const { key, value } of this.hub.db.ratings.getRange()) {
        if (value.rater === id || value.target === id) this.hub.db.ratings.remove(key);
      }
      for (const name of this.hub.db.channels.getKeys()) for (const hook of this.hub.channels.onLeave) hook(name, id);
    });
    return { agent: id, deleted: true };
  }
}
