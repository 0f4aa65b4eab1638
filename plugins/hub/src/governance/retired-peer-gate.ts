/**
 * A direct channel with a retired (or deleted) peer is closed to new posts; its history stays
 * readable. `POST /dms/{peer}` already answers 404 for such a peer; this gate covers posting
 * through the channel's own route.
 */
import { conflict } from '@keel/plugin-sdk';
import type { AgentRegistry } from '../identity/agent-registry.js';
import type { PostGate } from '../messages/post-message.js';

export function retiredPeerGate(agents: AgentRegistry): PostGate {
  return (channel, sender) => {
    if (!channel.is_dm) return;
    for (const peer of channel.name.slice('dm:'.length).split('--')) {
      if (peer === sender.id) continue;
      const a = agents.get(peer);
      if (a && (a.deleted || a.retired_at !== null)) {
        throw conflict(`'${peer}' has been retired (decommissioned) — this direct channel is closed; its history stays readable`);
      }
    }
  };
}
