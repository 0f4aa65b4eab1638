/**
 * Worker thread of the `ledger-read` pool: reads a page of a run's records from LMDB (the process
 * shares one environment across threads) and serialises them into `step` frames, so neither the
 * read nor the JSON work of a stream runs on the main thread. A page is bounded by records and by
 * bytes (at least one record), so one task never serialises a whole large ledger.
 */
import { workerData } from 'node:worker_threads';
import { workerStorageOnDemand, type WorkerStorageHandle } from '@keel/plugin-sdk/worker';
import type { StepRecord } from './records.js';

export interface ReadTask {
  runId: string;
  after: number;
  /** At most this many records... */
  limit: number;
  /** ...and stop once the frames reach this many bytes. */
  maxBytes: number;
}

export interface ReadResult {
  /** The frames, back to back. */
  bytes: Uint8Array;
  /** Cursor of each frame, and where it ends in `bytes`. */
  cursors: number[];
  ends: number[];
  /** False when the read reached the end of the ledger (as committed when it began). */
  more: boolean;
}

// lmdb is loaded and opened at the first read: a thread the pool starts and the host ends at once never enters it.
const storage = workerStorageOnDemand<StepRecord, [string, number]>(workerData as WorkerStorageHandle);
const encoder = new TextEncoder();

export default async function read(task: ReadTask): Promise<ReadResult> {
  const { env, db: records } = await storage();
  // See commits made since this thread's last read.
  env.resetReadTxn();
  const parts: string[] = [];
  const cursors: number[] = [];
  const ends: number[] = [];
  let end = 0;
  for (const { key, value } of records.getRange({ start: [task.runId, task.after + 1], end: [task.runId, Number.MAX_SAFE_INTEGER], limit: task.limit })) {
    const frame = `event: step\nid: ${key[1]}\ndata: ${JSON.stringify({ ...value, cursor: key[1] })}\n\n`;
    parts.push(frame);
    end += Buffer.byteLength(frame);
    cursors.push(key[1]);
    ends.push(end);
    if (end >= task.maxBytes) break;
  }
  const more = cursors.length === task.limit || end >= task.maxBytes;
  return { bytes: encoder.encode(parts.join('')), cursors, ends, more };
}
