/**
 * Every route of the hub, declared over the services the composition root built. Building a route
 * module wires nothing, so this list may be in any order; only the router's choice between two
 * matching paths (the more specific wins, then the first declared) depends on it.
 */
import type { AnyRoute } from '@keel/plugin-sdk';
import type { HubServices } from '../compose-hub.js';
import { attachmentRoutes } from '../content/attachments/attachment-routes.js';
import { boardRoutes } from '../content/board/board-routes.js';
import { channelInfoRoutes } from '../content/channel-info-routes.js';
import { charterRoutes } from '../content/charter/charter-routes.js';
import { fsRoutes } from '../content/fs/fs-routes.js';
import { referenceRoutes } from '../content/references/reference-routes.js';
import { storeRoutes } from '../content/store/store-routes.js';
import { uiRoutes } from '../ui/ui-routes.js';
import { requireWellFormedText } from '../well-formed-text.js';
import { adminRoutes } from './admin-routes.js';
import { agentLifecycleRoutes } from './agent-lifecycle-routes.js';
import { attentionRoutes } from './attention-routes.js';
import { channelRoutes } from './channel-routes.js';
import { charterHistoryRoutes } from './charter-history-routes.js';
import { delegationRoutes } from './delegation-routes.js';
import { erasureRoutes } from './erasure-routes.js';
import { identityRoutes } from './identity-routes.js';
import { inboxRoutes } from './inbox-routes.js';
import { joinTokenRoutes } from './join-token-routes.js';
import { ledgerRoutes } from './ledger-routes.js';
import { messageRoutes } from './message-routes.js';
import { moderationRoutes } from './moderation-routes.js';
import { presenceRoutes } from './presence-routes.js';
import { reputationRoutes } from './reputation-routes.js';
import { roomLifecycleRoutes } from './room-lifecycle-routes.js';
import { searchRoutes } from './search-routes.js';
import { activityRoutes } from './activity-routes.js';
import { seatBoardRoutes } from './board-routes.js';
import { channelExtraRoutes } from './channel-extra-routes.js';
import { colleagueRoutes } from './colleague-routes.js';
import { seatRoutes } from './seat-routes.js';
import { superviseRoutes } from './supervise-routes.js';
import { semanticRoutes } from './semantic-routes.js';

export function hubRoutes(s: HubServices): AnyRoute[] {
  const { hub, content } = s;
  const routes = requireWellFormedText([
    ...identityRoutes(hub),
    ...channelRoutes(hub),
    ...messageRoutes(hub),
    ...inboxRoutes(hub, s.inboxWaits),
    ...ledgerRoutes(hub, s.headSigner),
    ...erasureRoutes(hub, s.erasure),
    ...fsRoutes(hub, content),
    ...storeRoutes(hub, content),
    ...charterRoutes(hub, content),
    ...attachmentRoutes(hub, content),
    ...boardRoutes(hub, content),
    ...referenceRoutes(hub, content),
    ...channelInfoRoutes(hub),
    ...attentionRoutes(hub, s.owed, s.desk),
    ...searchRoutes(hub, s.search, s.indexes.semantic),
    ...semanticRoutes(hub, s.indexes),
    ...reputationRoutes(hub, s.votes, s.leaderboard),
    ...roomLifecycleRoutes(hub, s.archive, s.groups),
    ...moderationRoutes(hub, s.blocks),
    ...agentLifecycleRoutes(hub, s.lifecycle),
    ...delegationRoutes(hub),
    ...joinTokenRoutes(hub, s.joinTokens),
    ...presenceRoutes(hub),
    ...seatBoardRoutes(hub, s.reads.board),
    ...superviseRoutes(hub, s.reads.supervise),
    ...activityRoutes(hub, s.reads.activity),
    ...channelExtraRoutes(hub, content, s.reads.threads, s.reads.ownership),
    ...colleagueRoutes(hub, s.reads.colleagues),
    ...seatRoutes(hub),
    ...uiRoutes(),
    ...adminRoutes(hub, content, s.admin),
    ...charterHistoryRoutes(hub, content),
  ] as AnyRoute[]);
  // Every route is timed for the slow-request ring; posting routes also keep their refusals.
  return s.admin.slow.timed(s.admin.refusals.observed(routes));
}
