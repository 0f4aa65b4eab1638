/** A real `keel serve` process with the hub and the socket probe plugin, its admin token and seats. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, type ServerProcess } from './cli.js';
import { fixturesDir } from './paths.js';

export interface ServedHub {
  proc: ServerProcess;
  port: number;
  adminToken: string;
  /** Registers a seat with the admin key and returns its key. */
  seat(id: string): Promise<string>;
}

let counter = 0;

/** Starts `keel serve` on a free port with `server` settings, its config and data under `dir`. */
export async function serveHub(dir: string, server: Record<string, unknown> = {}): Promise<ServedHub> {
  const n = ++counter;
  const file = path.join(dir, `keel-${n}.json`);
  const dataDir = path.join(dir, `data-${n}`);
  writeFileSync(file, JSON.stringify({
    server: { port: 0, logLevel: 'warn', ...server },
    plugins: [{ use: '@keel/plugin-hub' }, { use: path.join(fixturesDir, 'socket-probe-plugin.js') }],
  }));
  const proc = await startServer(['--config', file, '--data-dir', dataDir]);
  const adminToken = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
  return {
    proc,
    port: Number(new URL(proc.url).port),
    adminToken,
    seat: async (id) => {
      const res = await fetch(`${proc.url}/hub/agents`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ id }) });
      if (res.status !== 200) throw new Error(`registering ${id}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { api_key: string }).api_key;
    },
  };
}
