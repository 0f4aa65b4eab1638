/**
 * Who administers a room's content (`channel:meta`, `channel/` files, rulings, gated acts): its
 * owner, an operator, or a delegate whose `ruling`/`operational`/`proxy` grant reaches the room
 * (governance/room-authority.ts decides; this names them in refusals).
 */
import type { AgentRecord, ChannelRecord } from '../records.js';

export type RoomAdminCheck = (c: ChannelRecord, seat: AgentRecord) => boolean;

/** The seats a refusal names as the ones who may act. */
export function adminsOf(c: ChannelRecord): string {
  const delegate = `a delegate holding 'ruling', 'operational' or 'proxy' for '${c.name}'`;
  return c.owner ? `the channel owner (${c.owner}), an operator, or ${delegate}` : `an operator or ${delegate} (this channel has no owner)`;
}
