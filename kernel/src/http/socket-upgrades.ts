/**
 * WebSocket upgrades: plugins declare exact paths (`SocketRoute`); the listener hands each upgrade
 * request to the one that owns its path, and refuses anything else with a plain 404.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { SocketRoute } from '@keel/plugin-sdk';
import type { LoadedPlugin } from '../plugins/load-plugins.js';
import { BootError } from '../boot-error.js';
import { joinPath } from './mount-routes.js';

export interface MountedSocket {
  pluginId: string;
  fullPath: string;
  socket: SocketRoute;
}

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

export function mountSocket(loaded: LoadedPlugin, socket: SocketRoute): MountedSocket {
  const mount = socket.mount ?? 'default';
  const prefix = loaded.mounts[mount];
  if (prefix === undefined) throw new BootError(`plugin '${loaded.plugin.id}' declares a socket on unknown mount point '${mount}'.`);
  return { pluginId: loaded.plugin.id, fullPath: joinPath(prefix, socket.path), socket };
}

export function upgradeHandler(sockets: readonly MountedSocket[]): UpgradeHandler {
  const byPath = new Map<string, MountedSocket>();
  for (const s of sockets) {
    const other = byPath.get(s.fullPath);
    if (other) throw new BootError(`socket ${s.fullPath} is declared by plugins '${other.pluginId}' and '${s.pluginId}'.`);
    byPath.set(s.fullPath, s);
  }
  return (req, socket, head) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const target = byPath.get(pathname);
    if (!target) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    target.socket.upgrade(req, socket, head);
  };
}
