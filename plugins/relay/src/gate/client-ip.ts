/**
 * The address the gate's limits apply to (reference §1.1 step 1): the socket's peer, or the first
 * `X-Forwarded-For` entry when `gate.trustXForwardedFor` is on (only behind a proxy that sets it:
 * otherwise any caller could name itself a fresh address and escape every limit).
 */
import type { IncomingMessage } from 'node:http';

export function clientIpOf(request: IncomingMessage, trustXForwardedFor: boolean): string {
  if (trustXForwardedFor) {
    const header = request.headers['x-forwarded-for'];
    const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
    if (first) return plainAddress(first.slice(0, 100));
  }
  return plainAddress(request.socket.remoteAddress ?? 'unknown');
}

/** `::ffff:127.0.0.1` is 127.0.0.1: one client, one set of limits. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
