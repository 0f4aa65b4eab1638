/**
 * Headers every response carries, errors included: browsers must not sniff a type other than the
 * one declared (an uploaded file served as text must not run as script or render as HTML).
 */
import type Koa from 'koa';

export function securityHeaders(): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set('x-content-type-options', 'nosniff');
    await next();
  };
}
