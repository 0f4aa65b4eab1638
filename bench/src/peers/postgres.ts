/**
 * A throwaway PostgreSQL cluster for DBOS: `initdb` in a temp directory, started with `pg_ctl` on
 * a free port (127.0.0.1 and a socket in the same directory), every durability setting at its
 * default (fsync on, synchronous_commit on, wal_sync_method fdatasync on Linux); stopped and
 * removed at the end. PostgreSQL refuses to run as root: as root, it runs as the `postgres` user
 * (Debian's package creates it) through `runuser`.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './procs.js';

const run = promisify(execFile);

export interface PostgresCluster {
  url(database: string): string;
  /** The postmaster's pid (its children, backends included, are its descendants). */
  postmasterPid: number;
  stop(): Promise<void>;
}

/** Why a cluster cannot be made with the binaries in `bin`, with how to install them; null when it can. */
export function postgresMissing(bin: string): string | null {
  if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return null;
  return `PostgreSQL is not installed (no ${path.join(bin, 'initdb')}): \`apt-get install postgresql\` (Debian's 15), or point BENCH_PEERS_PG_BIN at another bin directory, to measure DBOS.`;
}

export async function startPostgres(bin: string): Promise<PostgresCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'keel-bench-pg-'));
  const dataDir = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, postgresIds().uid, postgresIds().gid);
  const pg = (tool: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args));
  const port = await freePort();
  try {
    await pg('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-instructions']);
    await pg('pg_ctl', ['-D', dataDir, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', path.join(dir, 'postgres.log'), '-w', 'start']);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}`, { cause: err });
  }
  const postmasterPid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
  return {
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    postmasterPid,
    async stop() {
      try {
        await pg('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** The `postgres` user's uid and gid, from /etc/passwd. */
function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('PostgreSQL refuses to run as root and there is no `postgres` user to run it as (Debian\'s postgresql package creates one).');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
