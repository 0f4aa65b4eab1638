/**
 * The live socket's wiring: the socket follows the hub client's key (`ws_url()`) and shows its
 * state in the identity bar; an envelope for the selected channel re-reads its history, one for
 * another channel counts as unseen on the rail (a channel the page does not list yet is loaded,
 * which may adopt a pending direct message), and every envelope schedules a badge pass.
 */
import type { TeamHub } from '../hub-types.js';
import { LiveSocket, type LiveEnvelope } from '../live-socket.js';
import type { PageContext } from './context.js';
import type { ChannelNavigation } from './navigation.js';
import type { PagePolling } from './polling.js';
import type { PageRender } from './render.js';
import { hasRow } from './state.js';

export function pageSocket(hub: TeamHub, render: PageRender, onEnvelope: (envelope: LiveEnvelope) => void): LiveSocket {
  return new LiveSocket({ url: () => hub.ws_url(), onEnvelope, onState: (live) => render.identity({ live }) });
}

export function envelopeArrived(ctx: PageContext, nav: ChannelNavigation, polling: PagePolling, env: LiveEnvelope): void {
  const { state } = ctx;
  if (env.channel === state.selected && state.history) {
    void nav.refreshSelected(env.seq);
  } else if (!env.retracted) {
    state.unseen.set(env.channel, (state.unseen.get(env.channel) ?? 0) + 1);
    if (!hasRow(state, env.channel)) void nav.loadChannels().then(() => nav.adoptCreatedDm());
    else ctx.render.rail();
  }
  polling.scheduleBadges();
}
