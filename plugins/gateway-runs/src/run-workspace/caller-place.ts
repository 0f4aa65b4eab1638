/**
 * Whether a request comes from the gateway computer itself: its socket's remote address is a
 * loopback address (127.0.0.0/8, ::1, ::ffff:127.x) and no proxy says it forwarded it. A proxy on
 * the same computer forwards from loopback: it is trusted to add `Forwarded` / `X-Forwarded-For`,
 * and such a request never counts as local (the safe direction: a header can only take "local" away).
 */
import net from 'node:net';
import type { RouteContext } from '@keel/plugin-sdk';

type KoaContext = RouteContext<unknown, unknown, unknown>['koa'];

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (net.isIPv4(plain)) return plain.split('.')[0] === '127';
  return plain === '::1';
}

export function callerIsThisMachine(koa: KoaContext): boolean {
  if (koa.get('forwarded') || koa.get('x-forwarded-for') || koa.get('x-real-ip')) return false;
  return isLoopback(koa.req.socket?.remoteAddress);
}
