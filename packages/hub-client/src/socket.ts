// The live socket, kept small: open a WebSocket (global or injected constructor), send `subscribe`
// frames, parse the hub's frames and hand them to handlers. No reconnect policy lives here: the
// team page owns backoff and gap detection (reference §3.4).

import type { Envelope, IncomingFrame } from './types/envelopes.js';
import type { JsonObject } from './types/json.js';

/** The part of a WebSocket (browser or the `ws` package) this module uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code?: number; reason?: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** A WebSocket constructor: `globalThis.WebSocket` in browsers (and Node >= 22), or `ws`'s class. */
export type WebSocketConstructor = new (url: string) => object;

export interface SocketHandlers {
  /** Subscribed on open when given (the hub also delivers every member channel without it). */
  channels?: string[];
  /** Per-channel cursors for the first subscribe: backlog with seq > cursor is replayed. */
  since?: Record<string, number>;
  on_open?(): void;
  on_envelope?(envelope: Envelope): void;
  on_subscribed?(channels: string[]): void;
  on_posted?(frame: { id: string; seq: number }): void;
  on_pong?(): void;
  /** A hub `error` frame (`{detail, status?}`). */
  on_error?(frame: { detail: string; status?: number }): void;
  /** Every parsed frame, known types and unknown ones alike. */
  on_frame?(frame: IncomingFrame | JsonObject): void;
  on_close?(event: { code: number; reason: string }): void;
  /** Transport-level socket error (browsers expose no detail). */
  on_socket_error?(event: unknown): void;
}

export interface HubSocket {
  readonly socket: WebSocketLike;
  /** Sends (or, before open, queues) `{type: 'subscribe', channels, since}`; the latest call wins. */
  subscribe(channels: readonly string[], since?: Record<string, number>): void;
  /** Sends a JSON frame now; false when the socket is not open. */
  send(frame: object): boolean;
  ping(): boolean;
  close(code?: number, reason?: string): void;
}

const OPEN = 1;

export function openHubSocket(Ctor: WebSocketConstructor, url: string, handlers: SocketHandlers = {}): HubSocket {
  const socket = new Ctor(url) as WebSocketLike;
  let pending: string | null = null;

  const sendText = (text: string): boolean => {
    if (socket.readyState !== OPEN) return false;
    socket.send(text);
    return true;
  };
  const subscribeText = (channels: readonly string[], since?: Record<string, number>): string =>
    JSON.stringify(since ? { type: 'subscribe', channels: [...channels], since } : { type: 'subscribe', channels: [...channels] });

  if (handlers.channels) pending = subscribeText(handlers.channels, handlers.since);

  socket.onopen = () => {
    if (pending !== null && sendText(pending)) pending = null;
    handlers.on_open?.();
  };
  socket.onmessage = (event) => {
    const frame = parseFrame(event.data);
    if (frame === null) return;
    handlers.on_frame?.(frame);
    switch (frame['type']) {
      case 'envelope':
        if (frame['envelope'] && typeof frame['envelope'] === 'object') handlers.on_envelope?.(frame['envelope'] as Envelope);
        break;
      case 'subscribed':
        handlers.on_subscribed?.(Array.isArray(frame['channels']) ? (frame['channels'] as string[]) : []);
        break;
      case 'posted':
        handlers.on_posted?.({ id: String(frame['id']), seq: Number(frame['seq']) });
        break;
      case 'pong':
        handlers.on_pong?.();
        break;
      case 'error': {
        const status = frame['status'];
        handlers.on_error?.(typeof status === 'number' ? { detail: String(frame['detail'] ?? ''), status } : { detail: String(frame['detail'] ?? '') });
        break;
      }
      default:
        break;
    }
  };
  socket.onclose = (event) => handlers.on_close?.({ code: event?.code ?? 1006, reason: event?.reason ?? '' });
  socket.onerror = (event) => handlers.on_socket_error?.(event);

  return {
    socket,
    subscribe(channels, since) {
      const text = subscribeText(channels, since);
      if (!sendText(text)) pending = text;
    },
    send: (frame) => sendText(JSON.stringify(frame)),
    ping: () => sendText(JSON.stringify({ type: 'ping' })),
    close: (code, reason) => socket.close(code, reason),
  };
}

function parseFrame(data: unknown): JsonObject | null {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(data);
  else if (ArrayBuffer.isView(data)) text = new TextDecoder().decode(data);
  else return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
}
