/**
 * Worker thread of the `ledger-read` pool: reads a page of a run's records from LMDB (the process
 * shares one environment across threads) and serialises them into `step` frames (`read-frames.ts`),
 * so neither the read nor the JSON work of a large ledger's stream runs on the main thread.
 */
import { workerData } from 'node:worker_threads';
import { workerStorageOnDemand, type WorkerStorageHandle } from '@keel/plugin-sdk/worker';
import { readFrames, type ReadResult, type ReadTask } from './read-frames.js';
import type { StepRecord } from './records.js';

export type { ReadResult, ReadTask } from './read-frames.js';

// lmdb is loaded and opened at the first read: a thread the pool starts and the host ends at once never enters it.
const storage = workerStorageOnDemand<StepRecord, [string, number]>(workerData as WorkerStorageHandle);

export default async function read(task: ReadTask): Promise<ReadResult> {
  const { env, db: records } = await storage();
  // See commits made since this thread's last read.
  env.resetReadTxn();
  return readFrames(records, task);
}
