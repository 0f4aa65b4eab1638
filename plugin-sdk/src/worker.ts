/**
 * `@keel/plugin-sdk/worker`: what a plugin's worker thread module imports. Kept apart from the main
 * entry so a worker loads only what it uses (lmdb), not Koa and the rest of the SDK.
 */
export { openWorkerStorage, workerStorageOnDemand } from './worker-storage.js';
export type { StorageEnvOptions, WorkerStorage, WorkerStorageHandle } from './worker-storage.js';
