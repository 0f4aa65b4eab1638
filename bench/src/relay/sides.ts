/** The three sides' server children: the raw upstream (shared), the minimal relay and the Keel relay. */
import { randomBytes } from 'node:crypto';
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { cpuProfArgs } from '../common/server-settings.js';
import { CHILD_ENV, type RelayBenchSettings, type RelaySideId } from './settings.js';

export const SIDE_LABELS: Record<RelaySideId, string> = {
  direct: 'upstream direct',
  minimal: 'minimal http.request relay',
  keel: 'keel relay',
};

export interface Sides {
  upstream: ServerProcess;
  /** The relays, by side (`direct` is the upstream itself). */
  servers: Partial<Record<RelaySideId, ServerProcess>>;
  /** The bearer each side wants. */
  authorization: Record<RelaySideId, string>;
  stop(): Promise<void>;
}

const SCRIPTS: Record<Exclude<RelaySideId, 'direct'>, URL> = {
  minimal: new URL('./servers/minimal-relay-server.js', import.meta.url),
  keel: new URL('./servers/keel-relay-server.js', import.meta.url),
};

export async function startSides(s: RelayBenchSettings): Promise<Sides> {
  const upstreamKey = `sk-bench-${randomBytes(12).toString('hex')}`;
  const relayToken = randomBytes(32).toString('base64url');
  // The children read their settings from the environment they inherit.
  process.env[CHILD_ENV.upstreamKey] = upstreamKey;
  process.env[CHILD_ENV.relayToken] = relayToken;
  process.env[CHILD_ENV.deltas] = String(s.deltas);
  const upstream = await startServer(new URL('./servers/upstream-server.js', import.meta.url), []);
  process.env[CHILD_ENV.upstreamBase] = `http://127.0.0.1:${upstream.port}/v1`;
  const servers: Partial<Record<RelaySideId, ServerProcess>> = { direct: upstream };
  try {
    for (const id of s.sides) {
      if (id !== 'direct') servers[id] = await startServer(SCRIPTS[id], cpuProfArgs(s.cpuProfDir));
    }
  } catch (err) {
    await Promise.all(Object.values(servers).map((p) => p.stop()));
    throw err;
  }
  return {
    upstream,
    servers,
    authorization: { direct: `Bearer ${upstreamKey}`, minimal: `Bearer ${upstreamKey}`, keel: `Bearer ${relayToken}` },
    stop: async () => {
      await Promise.all(Object.values(servers).map((p) => p.stop()));
    },
  };
}
