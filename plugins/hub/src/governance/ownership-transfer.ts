/**
 * `PUT /channels/{c}/owner` (reference §8.5): hands a room to another member. The room's owner, an
 * operator, or a delegate whose ruling/operational/proxy grant reaches the room may do it, member or
 * not. The owner field, the served `created_by` and both member roles move in one transaction with
 * the two notices of reference B5.
 */
import { badRequest, conflict, forbidden, notFound } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import { systemNotice } from '../messages/hub-writer.js';
import type { AgentRecord } from '../records.js';
import { mayAdministerRoom, ownerLabel } from './room-authority.js';

export type TransferResult =
  | { channel: string; owner: string; previous: string; changed: true; by: string }
  | { channel: string; owner: string; changed: false };

export function ownershipNotices(channel: string, previous: string, next: string, actor: string): { handover: string; toNewOwner: string } {
  return {
    handover: `channel ownership transferred: ${previous} -> ${next} (by ${actor}). ${next} now owns the charter, the \`channel:\` rows, invites and the room's end.`,
    toNewOwner: `YOU NOW OWN '${channel}' (${next}), handed over by ${actor}. Yours now: the charter (\`channel/charter.md\`), the \`channel:\` metadata rows, minting invites, and archiving the room when the work is done.`,
  };
}

export class OwnershipTransfer {
  constructor(private readonly hub: Hub) {}

  async transfer(channel: string, to: string, seat: AgentRecord): Promise<TransferResult> {
    const { hub } = this;
    hub.pause.requireOpen(seat);
    // A private room stays a 404 to an outsider, unless it may administer the room anyway.
    const c = hub.channels.requireKnown(channel, seat, (room) => mayAdministerRoom(room, seat, hub.delegations));
    if (c.archived) throw conflict(`channel '${c.name}' is archived (ended); history is preserved but it accepts no writes`);
    if (c.is_dm) throw badRequest("a DM is ownerless — neither peer owns the other's record, so there is nothing to hand over");
    if (!mayAdministerRoom(c, seat, hub.delegations)) {
      const owner = ownerLabel(c);
      throw forbidden(
        `transferring ownership in '${c.name}' needs the channel owner (${owner}), an operator, or a delegate holding ruling/operational scoped to this channel. Ask ${owner} or an operator — or ask the operator to delegate it to you.`,
      );
    }
    const next = hub.agents.live(to);
    if (!next) throw notFound(`agent '${to}' is not registered`);
    if (!hub.db.isMember(c.name, next.id)) throw conflict(`'${next.id}' is not a member of '${c.name}' — invite them first, or they would own a room they cannot read`);
    if (c.owner === next.id) return { channel: c.name, owner: next.id, changed: false };
    // An ownerless room (`commons`) was created by the hub: the reference names its creator.
    const previous = c.owner ?? c.created_by;
    await hub.writer.run((w) => {
      const now = nowSeconds();
      hub.db.channels.put(c.name, { ...(hub.db.channels.get(c.name) ?? c), owner: next.id, created_by: next.id });
      const old = hub.db.members.get([c.name, previous]);
      if (old) hub.db.members.put([c.name, previous], { ...old, role: 'member' });
      const joined = hub.db.members.get([c.name, next.id]);
      if (joined) hub.db.members.put([c.name, next.id], { ...joined, role: 'owner' });
      const texts = ownershipNotices(c.name, previous, next.id, seat.id);
      w.insert(systemNotice(c.name, texts.handover, now));
      w.insert({ ...systemNotice(c.name, texts.toNewOwner, now), to: [next.id] });
    });
    return { channel: c.name, owner: next.id, previous, changed: true, by: seat.id };
  }
}
