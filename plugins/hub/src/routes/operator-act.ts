/** Route handlers for operator acts: an operator seat or the admin key, else the act's 403 sentence. */
import type { RouteContext } from '@keel/plugin-sdk';
import { requireOperator, type Actor } from '../identity/seat-auth.js';

/** A handler for a `seatOrAdminKey` route that admits an operator seat or the admin key (`refusal` answers any other seat), then acts as it. */
export function operatorAct<P, Q, B>(refusal: string, act: (actor: Actor, ctx: RouteContext<P, Q, B, Actor>) => unknown): (ctx: RouteContext<P, Q, B, Actor>) => unknown {
  return (ctx) => act(requireOperator(ctx.principal, refusal), ctx);
}
