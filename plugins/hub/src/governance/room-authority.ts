/**
 * Who may govern a room. A room admin (invites, and the other "admin" acts of reference §1) is the
 * room's owner, an operator, or a delegate holding `ruling`, `operational` or `proxy` whose scope
 * reaches the room; a moderator (channel blocks) is the owner, an operator, or a `moderation`
 * delegate. Every check is the hub's; the client only relays.
 */
import type { AgentRecord, ChannelRecord } from '../records.js';
import type { Delegations, Power } from './delegations.js';

const ADMIN_POWERS: Power[] = ['ruling', 'operational', 'proxy'];

export function ownsRoom(c: ChannelRecord, seat: AgentRecord): boolean {
  return c.owner !== null && c.owner === seat.id;
}

export function mayAdministerRoom(c: ChannelRecord, seat: AgentRecord, delegations: Delegations): boolean {
  return seat.operator || ownsRoom(c, seat) || ADMIN_POWERS.some((p) => delegations.hasPower(seat.id, p, c.name));
}

export function mayModerateRoom(c: ChannelRecord, seat: AgentRecord, delegations: Delegations): boolean {
  return seat.operator || ownsRoom(c, seat) || delegations.hasPower(seat.id, 'moderation', c.name);
}

/** How a room names its owner in a refusal (`commons` and direct channels have none). */
export function ownerLabel(c: ChannelRecord): string {
  return c.owner ?? 'none';
}
