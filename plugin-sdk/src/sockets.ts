/**
 * WebSocket endpoints. HTTP routes cannot take over a connection, so a plugin that speaks
 * WebSocket declares the paths it accepts upgrades on. The host owns the handshake: it checks the
 * browser Origin, runs the route's `authenticate` before anything is upgraded (a refusal is an
 * HTTP answer to the upgrade request, in the plugin's error shape), caps sockets per account,
 * completes the handshake with `ws` (frame size limit from the host's settings) and only then
 * hands the plugin an open WebSocket.
 *
 * Nothing a socket does can take the process down: protocol errors (invalid UTF-8, reserved bits,
 * oversized frames) close that socket; an exception thrown by, or a promise rejected from, a
 * listener the plugin added closes that socket with 1011 and is logged. At stop the host closes
 * every socket with 1001 and terminates those that do not finish the close handshake in time.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Who is connecting, as the route's `authenticate` decided. */
export interface SocketAdmission<P = unknown> {
  /** What the plugin needs to serve the connection (a seat, a principal, ...). */
  principal: P;
  /**
   * The key sockets are counted under for the per-account cap: a kernel principal's `account`, or
   * an identity of the plugin's own namespaced by it (`hub-seat:ann`).
   */
  account: string;
}

/** An open socket handed to the plugin. */
export interface SocketConnection<P = unknown> {
  /** Already open; the host listens for its errors. Send and receive text or binary frames. */
  ws: WebSocket;
  principal: P;
  account: string;
  /** The upgrade request (its query string is still on `req.url`). */
  req: IncomingMessage;
  /**
   * The TCP socket under `ws` (to cork a burst of writes, say, or to write whole frames you encoded
   * once for many sockets: no extension is negotiated, so frames are plain RFC 6455); the host owns its errors.
   */
  socket: Duplex;
}

export interface SocketRoute<P = unknown> {
  /** Exact path under the mount point's prefix (`/ws` under `/hub` answers `/hub/ws`); no parameters. */
  path: string;
  /** The plugin mount point this endpoint lives under (default `default`). */
  mount?: string;
  /**
   * Runs before the handshake. Return who connects, or throw an `HttpError` (`unauthorized`,
   * `forbidden`, ...) to refuse: the client gets that status and the plugin's error body on the
   * upgrade request, and no socket is opened.
   */
  authenticate(req: IncomingMessage): SocketAdmission<P> | Promise<SocketAdmission<P>>;
  /** Serves an accepted, open socket. Must not throw; a throw closes the socket with 1011. */
  connected(connection: SocketConnection<P>): void;
}
