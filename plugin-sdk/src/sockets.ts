/**
 * WebSocket endpoints. HTTP routes cannot take over a connection, so a plugin that speaks
 * WebSocket declares the paths it accepts upgrades on; the host hands it the raw upgrade (the
 * plugin completes the handshake with its own library, `ws` in `noServer` mode for example).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

export interface SocketRoute {
  /** Exact path under the mount point's prefix (`/ws` under `/hub` answers `/hub/ws`); no parameters. */
  path: string;
  /** The plugin mount point this endpoint lives under (default `default`). */
  mount?: string;
  /**
   * Completes or refuses the handshake. The query string is still on `req.url`. The plugin owns
   * `socket` from here on: it must either upgrade it or write a response and destroy it.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}
