/** Route handlers for operator acts: an operator seat or the admin key, else the act's 403 sentence. */
import type { RouteContext } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import type { Actor } from '../identity/seat-auth.js';

/** A handler that admits an operator seat or the admin key (`refusal` answers any other seat), then acts as it. */
export function operatorAct<P, Q, B>(hub: Hub, refusal: string, act: (actor: Actor, ctx: RouteContext<P, Q, B>) => unknown): (ctx: RouteContext<P, Q, B>) => Promise<unknown> {
  return async (ctx) => act(await hub.auth.operatorOrAdmin(ctx.koa, refusal), ctx);
}
