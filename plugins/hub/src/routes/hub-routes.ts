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
import { agentLifecycleRoutes } from './agent-lifecycle-routes.js';
import { attentionRoutes } from './attention-routes.js';
import { channelRoutes } from './channel-routes.js';
import { delegationRoutes } from './delegation-routes.js';
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
import { semanticRoutes } from './semantic-routes.js';

export function hubRoutes(s: HubServices): AnyRoute[] {
  const { hub, content } = s;
  return requireWellFormedText([
    ...identityRoutes(hub),
    ...channelRoutes(hub),
    ...messageRoutes(hub),
    ...inboxRoutes(hub),
    ...ledgerRoutes(hub),
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
    ...uiRoutes(),
  ] as AnyRoute[]);
}
