/**
 * The kernel's own routes, declared with the same SDK as every plugin so they are validated,
 * authenticated, listed in OpenAPI and checked for clashes the same way.
 */
import { definePlugin, SDK_VERSION } from '@keel/plugin-sdk';
import { accountListRoutes } from './account-list-routes.js';
import { accountRoutes } from './account-routes.js';
import { preferencesRoutes } from './preferences-routes.js';
import { sessionRoutes } from './session-routes.js';
import type { CoreContext } from './core-context.js';
import { docsRoutes } from './docs-routes.js';
import { healthRoutes } from './health-routes.js';
import { hostRoutes } from './host-routes.js';
import { landingRoutes } from './landing-routes.js';

export const CORE_PLUGIN_ID = 'core';
/** Where the kernel's account and about routes live (`/api/gateway/me`, `/api/gateway/admin/users`). */
export const CORE_GATEWAY_PREFIX = '/api/gateway';

export function createCorePlugin(core: CoreContext) {
  return definePlugin({
    id: CORE_PLUGIN_ID,
    version: core.host.kernelVersion,
    sdk: `^${SDK_VERSION}`,
    description: 'Keel kernel: health, about, accounts, browser sign-in, host state and processes, OpenAPI, docs and the landing page',
    // Its account routes live under the gateway prefix: anonymous callers cannot map what else is there.
    mounts: { gateway: { prefix: CORE_GATEWAY_PREFIX, guardUnmatched: true } },
    setup: () => ({
      routes: [
        ...healthRoutes(core), ...accountRoutes(core), ...sessionRoutes(core), ...accountListRoutes(core), ...preferencesRoutes(core),
        ...docsRoutes(core), ...landingRoutes(core), ...hostRoutes(core),
      ],
      // Request counts still in memory are written before LMDB closes.
      stop: () => core.signin.activity.flush(),
    }),
  });
}
