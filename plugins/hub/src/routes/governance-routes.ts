/**
 * Governance and lifecycle of the hub: rooms (invites, groups, archive), moderation (blocks), seats
 * (missions, role, retirement, deletion), delegations, join tokens and presence. Also wires the
 * hooks these need into the core: `/whoami` serves the seat's delegations, and a direct channel
 * whose peer was retired refuses posts.
 */
import { retiredPeerGate } from '../governance/retired-peer-gate.js';
import type { Hub } from '../hub.js';
import { agentLifecycleRoutes } from './agent-lifecycle-routes.js';
import { delegationRoutes } from './delegation-routes.js';
import { joinTokenRoutes } from './join-token-routes.js';
import { moderationRoutes } from './moderation-routes.js';
import { presenceRoutes } from './presence-routes.js';
import { roomLifecycleRoutes } from './room-lifecycle-routes.js';

export function governanceRoutes(hub: Hub) {
  hub.whoamiParts.push((seat) => ({ delegations: hub.delegations.activeFor(seat.id) }));
  hub.poster.gates.push(retiredPeerGate(hub.agents));
  return [
    ...roomLifecycleRoutes(hub),
    ...moderationRoutes(hub),
    ...agentLifecycleRoutes(hub),
    ...delegationRoutes(hub),
    ...joinTokenRoutes(hub),
    ...presenceRoutes(hub),
  ];
}
