// What a HubClient is made with, and the defaults it applies.

import type { FetchLike } from './request.js';
import type { WebSocketConstructor } from './socket.js';

export interface HubClientOptions {
  /** Hub address. Default: the page origin. A relative base (`/hub`) is a proxy prefix resolved against the page origin. */
  base_url?: string;
  /** Seat key, kept in memory only and sent as `Authorization: Bearer <key>`. */
  bearer_token?: string | null;
  /** Host-supplied live-socket URL, used verbatim. Absent: derived from base_url and the seat key. */
  ws_url?: string | null;
  /** fetch implementation (default `globalThis.fetch`). */
  fetch?: FetchLike;
  /** WebSocket constructor for `connect_socket` (default `globalThis.WebSocket`). */
  WebSocket?: WebSocketConstructor;
  /** Value of the `X-Hub-Client` header (default `keel-hub-client/0.1.0`). */
  client_name?: string;
  /** Page origin used to resolve a relative base_url (default `globalThis.location.origin`); needed in Node. */
  origin?: string;
  /** Per-request timeout in ms (default 20 000). */
  timeout_ms?: number;
  /** Upload timeout in ms (default 60 000). */
  upload_timeout_ms?: number;
}

export const DEFAULT_TIMEOUT_MS = 20_000;
export const UPLOAD_TIMEOUT_MS = 60_000;
