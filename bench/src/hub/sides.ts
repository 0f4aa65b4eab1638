/**
 * The two servers and how each is set up before it is measured: where the poster posts, where the
 * members' sockets connect, and which channel and sender their frames name.
 *
 * keel is set up over its real HTTP API with the admin key, as a hub operator would: one poster
 * seat and `members` member seats (`POST /hub/agents`), a public room the poster creates
 * (`POST /hub/channels`) and every member joins (`POST /hub/channels/<c>/join`); each member's
 * socket is `ws://.../hub/ws?token=<its key>`. The poster has no socket (the hub does not echo a
 * seat's own posts anyway), so both servers push every message to exactly `members` sockets.
 */
import type { PostTarget } from './poster.js';
import { RAW_CHANNEL, RAW_SENDER, type HubServerId } from './settings.js';

export const SERVER_LABELS: Record<HubServerId, string> = {
  raw: 'node:http + ws broadcast',
  keel: 'keel hub plugin',
};

export const SERVER_SCRIPTS: Record<HubServerId, URL> = {
  raw: new URL('./servers/raw-hub-server.js', import.meta.url),
  keel: new URL('./servers/keel-hub-server.js', import.meta.url),
};

export interface PreparedSide {
  post: PostTarget;
  socketUrls: string[];
  channel: string;
  sender: string;
}

const KEEL_CHANNEL = 'bench-room';
const KEEL_POSTER = 'bench-poster';
/** Seat registrations and joins in flight during setup (not timed). */
const SETUP_CONCURRENCY = 8;

export async function prepareSide(id: HubServerId, port: number, members: number, adminToken: string): Promise<PreparedSide> {
  const base = `http://127.0.0.1:${port}`;
  if (id === 'raw') {
    return { post: { url: `${base}/messages`, headers: {} }, socketUrls: Array.from({ length: members }, () => `ws://127.0.0.1:${port}/ws`), channel: RAW_CHANNEL, sender: RAW_SENDER };
  }
  const admin = { authorization: `Bearer ${adminToken}` };
  const register = async (seat: string) => (await post<{ api_key: string }>(`${base}/hub/agents`, admin, { id: seat })).api_key;
  const posterKey = await register(KEEL_POSTER);
  const poster = { authorization: `Bearer ${posterKey}` };
  await post(`${base}/hub/channels`, poster, { name: KEEL_CHANNEL, private: false });
  const ids = Array.from({ length: members }, (_, i) => `bench-member-${String(i).padStart(3, '0')}`);
  const keys = await inBatches(ids, SETUP_CONCURRENCY, async (seat) => {
    const key = await register(seat);
    await post(`${base}/hub/channels/${KEEL_CHANNEL}/join`, { authorization: `Bearer ${key}` }, {});
    return key;
  });
  return {
    post: { url: `${base}/hub/channels/${KEEL_CHANNEL}/messages`, headers: poster },
    socketUrls: keys.map((key) => `ws://127.0.0.1:${port}/hub/ws?token=${encodeURIComponent(key)}`),
    channel: KEEL_CHANNEL,
    sender: KEEL_POSTER,
  };
}

async function inBatches<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

async function post<T>(url: string, headers: Record<string, string>, body: unknown): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
