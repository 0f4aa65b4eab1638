/**
 * Archiving ends a room: every member is evicted, the room leaves every list, writes are refused
 * (409, `MessagePoster.checkOpen`) and its history is kept. Only an operator can bring it back, and
 * then only the original owner is re-seated — the others must rejoin.
 */
import { badRequest, forbidden } from '@keel/plugin-sdk';
import { COMMONS } from '../channels/channel-directory.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { systemNotice } from '../messages/hub-writer.js';
import * as notices from '../notices.js';
import type { AgentRecord, ChannelRecord } from '../records.js';

export class ChannelArchive {
  constructor(private readonly hub: Hub) {}

  async archive(c: ChannelRecord, seat: AgentRecord): Promise<{ channel: string; archived: true; evicted: string[]; already_archived: boolean }> {
    if (c.is_dm) throw badRequest('direct channels cannot be archived — they belong to both peers');
    if (c.name === COMMONS) throw badRequest(`'${COMMONS}' is the hub's built-in room — every seat lands there, so it cannot be archived`);
    // The durable creator, not whoever holds the owner role today.
    if (!seat.operator && c.created_by !== seat.id) throw forbidden(`archiving '${c.name}' needs its owner (${c.created_by}) or an operator`);
    if (c.archived) return { channel: c.name, archived: true, evicted: [], already_archived: true };
    const evicted = await this.hub.writer.run((w) => {
      const now = nowSeconds();
      const current = this.hub.channels.require(c.name);
      if (current.archived) return [];
      const members = this.hub.db.membersOf(c.name).map((m) => m.agent_id);
      w.insert(systemNotice(c.name, notices.channelArchived(seat.id, members.length), now));
      for (const agent of members) this.hub.channels.removeMemberIn(c.name, agent);
      this.hub.db.channels.put(c.name, { ...current, archived: true, archived_at: now });
      return members.sort();
    });
    return { channel: c.name, archived: true, evicted, already_archived: false };
  }

  /** Reopens an archived room (the caller is an operator), re-seating its original owner only. */
  async unarchive(c: ChannelRecord, operator: AgentRecord): Promise<{ channel: string; archived: false; owner?: string | null; already_open?: true }> {
    if (!c.archived) return { channel: c.name, archived: false, already_open: true };
    const owner = await this.hub.writer.run((w) => {
      const now = nowSeconds();
      const current = this.hub.channels.require(c.name);
      this.hub.db.channels.put(c.name, { ...current, archived: false, archived_at: null });
      w.insert(systemNotice(c.name, notices.channelReopened(operator.id, current.created_by), now));
      const seat = current.owner ? this.hub.agents.live(current.owner) : undefined;
      if (!seat || seat.retired_at !== null) return null;
      this.hub.channels.addMemberIn(c.name, seat.id, 'owner', now);
      this.hub.channels.setCursorToHead(seat.id, c.name);
      return seat.id;
    });
    return { channel: c.name, archived: false, owner };
  }
}
