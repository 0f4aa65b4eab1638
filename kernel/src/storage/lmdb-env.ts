/**
 * The one LMDB environment of a data directory (`<data>/db`). Commits are synced before their
 * promise resolves (overlappingSync off), so an awaited write is durable: a kill -9 after the
 * acknowledgement loses nothing.
 */
import path from 'node:path';
import { open, type Database, type Key, type RootDatabase } from 'lmdb';
import type { PluginStorage, StorageEnvOptions, SubDatabaseOptions, WorkerStorageHandle } from '@keel/plugin-sdk';
import { makeDirectory } from './make-directory.js';

/** The folder of a data directory's LMDB environment. */
export function lmdbPath(dataDir: string): string {
  return path.join(dataDir, 'db');
}

/** The options every opener of the environment uses (the kernel and worker threads alike). */
export const LMDB_OPTIONS: Readonly<StorageEnvOptions> = { maxDbs: 512, overlappingSync: false, compression: false };

export function openLmdbEnv(dataDir: string): RootDatabase {
  const dir = lmdbPath(dataDir);
  makeDirectory(dir);
  return open({ path: dir, ...LMDB_OPTIONS });
}

/** Storage as one plugin sees it: sub-databases named `<plugin id>:<name>`. */
export class ScopedStorage implements PluginStorage {
  private readonly opened = new Map<string, Database<unknown, Key>>();

  constructor(private readonly root: RootDatabase, private readonly namespace: string, private readonly envPath: string) {}

  openDB<V = unknown, K extends Key = Key>(name: string, options: SubDatabaseOptions = {}): Database<V, K> {
    const full = this.fullName(name);
    let db = this.opened.get(full);
    if (!db) {
      db = this.root.openDB<unknown, Key>({ ...options, name: full });
      this.opened.set(full, db);
    }
    return db as unknown as Database<V, K>;
  }

  /**
   * A child transaction per callback: lmdb-js runs every transaction of an event turn in one commit,
   * and a plain callback that throws keeps the writes it made before throwing. As a child, its
   * writes are rolled back and the others in the commit stand.
   */
  transaction<T>(fn: () => T): Promise<T> {
    return this.root.childTransaction(fn);
  }

  workerHandle(name: string, options: SubDatabaseOptions = {}): WorkerStorageHandle {
    return { path: this.envPath, dbName: this.fullName(name), env: { ...LMDB_OPTIONS }, db: { ...options } };
  }

  private fullName(name: string): string {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`storage name '${name}' may only hold letters, digits, '.', '_' and '-'.`);
    return `${this.namespace}:${name}`;
  }
}
