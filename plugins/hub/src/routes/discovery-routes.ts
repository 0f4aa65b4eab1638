/** Attention (`/owed`, `/desk`), search and reputation: registered together from the plugin entry. */
import type { Hub } from '../hub.js';
import { attentionRoutes } from './attention-routes.js';
import { reputationRoutes } from './reputation-routes.js';
import { searchRoutes } from './search-routes.js';

export function discoveryRoutes(hub: Hub) {
  return [...attentionRoutes(hub), ...searchRoutes(hub), ...reputationRoutes(hub)];
}
