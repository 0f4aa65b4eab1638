/**
 * Fair access to the `ledger-read` pool across runs. Each run has its own queue and runs take turns
 * (round robin); a run has at most one read in the pool at a time, and the pool is never handed more
 * reads than it has threads. A small run's tail read so waits for at most one page of each other
 * busy run, never for a large run's whole backlog. Within a run, its live tail goes first.
 */
import type { ReadResult, ReadTask } from './ledger-read-worker.js';

export interface PoolReader {
  /** `first`: ahead of the run's other queued reads (its live tail goes before its replays). */
  read(task: ReadTask, first?: boolean): Promise<ReadResult>;
}

interface Job {
  task: ReadTask;
  resolve: (result: ReadResult) => void;
  reject: (err: unknown) => void;
}

export class FairReads implements PoolReader {
  /** Queued reads per run; the map's order is the order in which runs get their next turn. */
  private readonly queues = new Map<string, Job[]>();
  /** Runs with a read in the pool. */
  private readonly busy = new Set<string>();
  private running = 0;

  constructor(private readonly pool: PoolReader, private readonly concurrency: number) {}

  read(task: ReadTask, first = false): Promise<ReadResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(task.runId);
      if (queue && first) queue.unshift({ task, resolve, reject });
      else if (queue) queue.push({ task, resolve, reject });
      else this.queues.set(task.runId, [{ task, resolve, reject }]);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.running < this.concurrency) {
      const runId = this.nextRun();
      if (runId === undefined) return;
      const queue = this.queues.get(runId)!;
      const job = queue.shift()!;
      // The run goes to the back of the turn order (or leaves it when it has nothing else queued).
      this.queues.delete(runId);
      if (queue.length) this.queues.set(runId, queue);
      this.busy.add(runId);
      this.running++;
      this.pool.read(job.task).then(job.resolve, job.reject).finally(() => {
        this.busy.delete(runId);
        this.running--;
        this.dispatch();
      });
    }
  }

  private nextRun(): string | undefined {
    for (const runId of this.queues.keys()) if (!this.busy.has(runId)) return runId;
    return undefined;
  }
}
