/**
 * WebSocket upgrades. Plugins declare exact paths (`SocketRoute`); the kernel owns every handshake:
 * Origin (the HTTP allowlist), the route's `authenticate`, the per-account cap, then the `ws`
 * handshake with the frame size limit. Every refusal is an HTTP answer to the upgrade request in
 * the plugin's error shape, so nothing is opened for a caller without a key. The plugin gets an
 * open socket whose errors, and whose listeners' throws and rejections, never reach the process.
 * At stop every socket is closed with 1001 and terminated if its close handshake does not finish.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  HttpError, isHttpError, serviceUnavailable, tooManyRequests,
  type ErrorFormatter, type Logger, type SocketAdmission, type SocketRoute,
} from '@keel/plugin-sdk';
import type { LoadedPlugin } from '../plugins/load-plugins.js';
import { BootError } from '../boot-error.js';
import { AccountSlots } from './account-slots.js';
import { GuardedWebSocket } from './guarded-websocket.js';
import { joinPath } from './mount-routes.js';
import type { OriginPolicy } from './origin-policy.js';

export interface MountedSocket {
  pluginId: string;
  fullPath: string;
  socket: SocketRoute;
  errorFormat: ErrorFormatter;
}

export type UpgradeHandler = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface SocketHostOptions {
  origins: OriginPolicy;
  /** Open sockets one account may hold at once (`server.live.socketsPerAccount`). */
  perAccount: number;
  /** Largest frame (or message) a client may send (`server.live.socketMaxPayloadBytes`). */
  maxPayloadBytes: number;
  /** The failed sign-in counter of every route: a throttled source is refused, a 401 is counted. */
  failedAuth: {
    refuseThrottledSource(req: http.IncomingMessage): void;
    recordFailedAuthentication(req: http.IncomingMessage, what: string): void;
  };
  log: Logger;
}

const CLOSE_GOING_AWAY = 1001;
const CLOSE_INTERNAL_ERROR = 1011;

export function mountSocket(loaded: LoadedPlugin, socket: SocketRoute, errorFormat: ErrorFormatter): MountedSocket {
  const mount = socket.mount ?? 'default';
  const prefix = loaded.mounts[mount];
  if (prefix === undefined) throw new BootError(`plugin '${loaded.plugin.id}' declares a socket on unknown mount point '${mount}'.`);
  return { pluginId: loaded.plugin.id, fullPath: joinPath(prefix, socket.path), socket, errorFormat };
}

export class SocketHost {
  private readonly byPath = new Map<string, MountedSocket>();
  private readonly wss: WebSocketServer;
  private readonly slots: AccountSlots;
  /** Upgrade requests between arrival and the handshake (their `authenticate` may be pending). */
  private readonly handshaking = new Set<Duplex>();
  private readonly open = new Set<GuardedWebSocket>();
  private stopping = false;

  constructor(sockets: readonly MountedSocket[], private readonly options: SocketHostOptions) {
    for (const s of sockets) {
      const other = this.byPath.get(s.fullPath);
      if (other) throw new BootError(`socket ${s.fullPath} is declared by plugins '${other.pluginId}' and '${s.pluginId}'.`);
      this.byPath.set(s.fullPath, s);
    }
    this.slots = new AccountSlots(options.perAccount);
    // No permessage-deflate (ws's default, said here: plugins may write whole uncompressed frames to `socket`).
    this.wss = new WebSocketServer({ noServer: true, clientTracking: false, maxPayload: options.maxPayloadBytes, perMessageDeflate: false, WebSocket: GuardedWebSocket });
  }

  /** The listener's `upgrade` handler. */
  readonly handle: UpgradeHandler = (req, socket, head) => {
    // A reset or a write after the peer left must not become an unhandled 'error'.
    socket.on('error', (err) => this.options.log.debug('upgrade connection error', { err: String(err) }));
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const target = this.byPath.get(pathname);
    if (!target) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    this.admit(target, req, socket, head).catch((err: unknown) => {
      this.options.log.error('socket upgrade failed', { path: target.fullPath, err });
      socket.destroy();
    });
  };

  private async admit(target: MountedSocket, req: http.IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    if (this.stopping) return refuse(socket, target, stoppingRefusal());
    const foreign = this.options.origins.refusal(req.headers.origin, req);
    if (foreign) return refuse(socket, target, foreign);

    // Every upgrade is a sign-in (each socket route authenticates): a source throttled for bad keys
    // is refused here as on every other route, and a key the route refuses (401) counts against it.
    try {
      this.options.failedAuth.refuseThrottledSource(req);
    } catch (err) {
      return refuse(socket, target, err as HttpError);
    }
    let admission: SocketAdmission;
    this.handshaking.add(socket);
    try {
      admission = await target.socket.authenticate(req);
    } catch (err) {
      if (!isHttpError(err)) this.options.log.error('socket authenticate failed', { plugin: target.pluginId, path: target.fullPath, err });
      if (isHttpError(err) && err.status === 401) this.options.failedAuth.recordFailedAuthentication(req, `key on socket ${target.fullPath}`);
      return refuse(socket, target, isHttpError(err) ? err : new HttpError(500, 'The server could not check this connection; the error is in its log.'));
    } finally {
      this.handshaking.delete(socket);
    }
    if (socket.destroyed) return;
    if (this.stopping) return refuse(socket, target, stoppingRefusal());

    const release = this.slots.tryAcquire(admission.account);
    if (!release) {
      return refuse(socket, target, tooManyRequests(`'${admission.account}' already has ${this.slots.limit} sockets open, the most one account may hold at once (server.live.socketsPerAccount). Close one and try again.`, {
        code: 'too_many_sockets',
      }));
    }
    // Released when the TCP connection ends, whether or not the handshake completed.
    socket.once('close', release);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accepted(target, ws as GuardedWebSocket, req, socket, admission));
  }

  private accepted(target: MountedSocket, ws: GuardedWebSocket, req: http.IncomingMessage, socket: Duplex, admission: SocketAdmission): void {
    const { log } = this.options;
    this.open.add(ws);
    ws.once('close', () => this.open.delete(ws));
    // Protocol errors (invalid UTF-8, reserved bits, a frame over the limit): ws closes the socket itself.
    ws.on('error', (err) => log.info('socket closed on a protocol error', { plugin: target.pluginId, path: target.fullPath, account: admission.account, err: String(err) }));
    ws.onListenerError = (err, event) => {
      log.error('socket listener failed; closing the socket', { plugin: target.pluginId, path: target.fullPath, event, err });
      closeSocket(ws, CLOSE_INTERNAL_ERROR, 'internal error');
    };
    try {
      target.socket.connected({ ws, principal: admission.principal, account: admission.account, req, socket });
    } catch (err) {
      ws.onListenerError(err, 'connected');
    }
  }

  /**
   * Stop: refuses new upgrades, drops pending ones, closes every socket with 1001 and terminates
   * those still open after `timeoutMs`.
   */
  async closeAll(timeoutMs: number): Promise<void> {
    this.stopping = true;
    for (const socket of this.handshaking) socket.destroy();
    if (this.open.size === 0) return;
    const allClosed = new Promise<void>((resolve) => {
      const check = () => {
        if (this.open.size === 0) resolve();
      };
      for (const ws of this.open) {
        ws.once('close', check);
        closeSocket(ws, CLOSE_GOING_AWAY, 'server stopping');
      }
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([allClosed, timedOut]);
    clearTimeout(timer);
    if (this.open.size) this.options.log.warn('sockets did not finish their close handshake in time; terminating them', { open: this.open.size });
    for (const ws of this.open) ws.terminate();
  }
}

function stoppingRefusal(): HttpError {
  return serviceUnavailable('The server is stopping; connect again once it is back.', { code: 'server_stopping' });
}

function closeSocket(ws: GuardedWebSocket, code: number, reason: string): void {
  if (ws.readyState === ws.CLOSING || ws.readyState === ws.CLOSED) return;
  ws.close(code, reason);
}

/** Answers the upgrade request with the plugin's error response and ends the connection. */
function refuse(socket: Duplex, target: MountedSocket, err: HttpError): void {
  if (socket.destroyed) return;
  const { status, body } = target.errorFormat(err);
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    connection: 'close',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    ...err.headers,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, ' ')}`);
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('\r\n')}\r\n\r\n${payload}`);
}
