/** Every route of the hub's content area, on the hub's content services (wired on first use). */
import type { Hub } from '../hub.js';
import { attachmentRoutes } from './attachments/attachment-routes.js';
import { boardRoutes } from './board/board-routes.js';
import { channelInfoRoutes } from './channel-info-routes.js';
import { charterRoutes } from './charter/charter-routes.js';
import { fsRoutes } from './fs/fs-routes.js';
import { HubContent } from './hub-content.js';
import { referenceRoutes } from './references/reference-routes.js';
import { storeRoutes } from './store/store-routes.js';

export function contentRoutes(hub: Hub) {
  const content = HubContent.of(hub);
  return [
    ...fsRoutes(hub, content),
    ...storeRoutes(hub, content),
    ...charterRoutes(hub, content),
    ...attachmentRoutes(hub, content),
    ...boardRoutes(hub, content),
    ...referenceRoutes(hub, content),
    ...channelInfoRoutes(hub),
  ];
}
