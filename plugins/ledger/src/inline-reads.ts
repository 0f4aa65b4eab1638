/**
 * Stream reads of small ledgers on the main thread. Handing a read to the `ledger-read` pool costs
 * the main thread a posted task, a woken thread and the result passed back, several times what
 * reading and serialising a few records costs; the pool is there so that a large ledger's pages
 * never hold the event loop. A run whose whole ledger is at most `maxBytes` (as JSON text, the
 * ledger's own count of what it wrote) is read here; any other read goes to the pool, fairly.
 */
import type { Database } from 'lmdb';
import type { PoolReader } from './fair-reads.js';
import { readFrames, type ReadResult, type ReadTask } from './read-frames.js';
import type { StepRecord } from './records.js';

export class InlineSmallReads implements PoolReader {
  constructor(
    private readonly pool: PoolReader,
    private readonly records: Database<StepRecord, [string, number]>,
    /** Record bytes each run has written (the ledger's `run-bytes`). */
    private readonly runBytes: Database<number, string>,
    private readonly maxBytes: number,
  ) {}

  read(task: ReadTask, first = false): Promise<ReadResult> {
    if (this.maxBytes > 0 && (this.runBytes.get(task.runId) ?? 0) <= this.maxBytes) {
      try {
        return Promise.resolve(readFrames(this.records, task));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.pool.read(task, first);
  }
}
