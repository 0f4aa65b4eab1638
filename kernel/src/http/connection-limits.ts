/**
 * Bounds on the connections of the kernel's own listener: how long a client may take to send a
 * request, how long an idle connection stays, and how many connections there may be in total and
 * from one address. A slow or idle client (slowloris) or one address opening thousands of sockets
 * cannot exhaust the server. Responses are not bounded here: event streams and WebSockets are
 * long-lived on purpose and have their own per-account caps (`server.live`).
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { HttpConfig } from '../config/kernel-config.js';

/** Options for `http.createServer`. Node requires headersTimeout ≤ requestTimeout. */
export function serverTimeouts(config: HttpConfig): http.ServerOptions {
  const headersTimeout = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node checks these timeouts on an interval (30 s by default), which would let small values overrun.
    connectionsCheckingInterval: Math.min(1_000, headersTimeout),
  };
}

/** Caps the open connections of `server`, in total and per remote address; the excess is closed. */
export function capConnections(server: http.Server, config: HttpConfig): void {
  server.maxConnections = config.maxConnections;
  const perSource = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const source = socket.remoteAddress ?? 'unknown';
    const open = perSource.get(source) ?? 0;
    if (open >= config.connectionsPerSource) {
      socket.destroy();
      return;
    }
    perSource.set(source, open + 1);
    socket.once('close', () => {
      const left = (perSource.get(source) ?? 1) - 1;
      if (left > 0) perSource.set(source, left);
      else perSource.delete(source);
    });
  });
}
