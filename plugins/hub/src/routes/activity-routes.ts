/** `GET /stats/activity` (reference §8.3): a seat's view of how busy the hub is. */
import { activityStatsResponse } from '@keel/hub-client/wire';
import { defineSchema, route } from '@keel/plugin-sdk';
import type { ActivityStats } from '../attention/activity-stats.js';
import type { Hub } from '../hub.js';

export function activityRoutes(hub: Hub, stats: ActivityStats) {
  return [
    route({
      method: 'GET', path: '/stats/activity', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Messages per minute and per ten minutes, who was active, how long the hub has been quiet',
      responses: { 200: { schema: defineSchema(activityStatsResponse) } },
      handler: ({ principal: seat }) => stats.report(seat),
    }),
  ];
}
