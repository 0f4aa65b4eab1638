/**
 * Storage in a worker thread. A plugin asks its storage for `workerHandle(name)` (a plain,
 * serialisable value: pass it as the pool's `workerData` or in a task), and its worker module opens
 * it with `openWorkerStorage` from `@keel/plugin-sdk/worker`. The handle carries the kernel's own
 * open options, so the worker opens the environment exactly as the kernel does (lmdb-js shares one
 * environment across a process's threads, and every opener must agree) without a copy of them.
 */
import type { Database, DatabaseOptions, Key, RootDatabase } from 'lmdb';

/** The options the kernel opens the data directory's LMDB environment with. */
export interface StorageEnvOptions {
  maxDbs: number;
  overlappingSync: boolean;
  compression: boolean;
}

/** One of a plugin's sub-databases, as a worker thread opens it. */
export interface WorkerStorageHandle {
  /** The environment's folder (`<data>/db`). */
  path: string;
  /** The sub-database's full name, `<plugin id>:<name>`. */
  dbName: string;
  /** The kernel's open options of the environment. */
  env: StorageEnvOptions;
  /** The sub-database's options, as given to `workerHandle` (plain values only: the handle crosses to a thread). */
  db: Omit<DatabaseOptions, 'name' | 'path'>;
}

export interface WorkerStorage<V, K extends Key> {
  /** The environment (call `resetReadTxn()` before a read that must see commits made since the last one). */
  env: RootDatabase;
  db: Database<V, K>;
}

/**
 * Opens a handle made by `PluginStorage.workerHandle` (in a worker thread, once per thread). lmdb is
 * imported here, not when the module loads: see `workerStorageOnDemand`.
 */
export async function openWorkerStorage<V = unknown, K extends Key = Key>(handle: WorkerStorageHandle): Promise<WorkerStorage<V, K>> {
  const { open } = await import('lmdb');
  const env = open({ path: handle.path, ...handle.env });
  return { env, db: env.openDB<V, K>({ ...handle.db, name: handle.dbName }) };
}

/**
 * Loads lmdb and opens the handle on first use, not when the worker module loads. A pool may start a
 * thread and the host end it at once (a boot that fails in a later plugin, a quick stop): a thread
 * ended while lmdb's native addon registers or opens aborts the whole process (a fatal `napi_throw`,
 * seen in full test runs), so a worker touches lmdb only when its first task needs it. Resolves to
 * the same `WorkerStorage` on every call.
 */
export function workerStorageOnDemand<V = unknown, K extends Key = Key>(handle: WorkerStorageHandle): () => Promise<WorkerStorage<V, K>> {
  let opened: Promise<WorkerStorage<V, K>> | undefined;
  return () => (opened ??= openWorkerStorage<V, K>(handle));
}
