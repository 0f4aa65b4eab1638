/** `system_datetime`: the host's clock, in UTC. */
import type { Helpers } from './helper.js';

export const systemHelpers: Helpers = {
  system_datetime: () => {
    const now = new Date();
    return { iso: now.toISOString(), timezone: 'UTC', utc_offset_minutes: 0, locale: 'en-US' };
  },
};
