/**
 * Piscina pools owned by the kernel: plugins create them by name, the kernel closes them all at
 * stop (after plugins stopped, before LMDB closes).
 */
import { Piscina } from 'piscina';
import type { WorkerPoolOptions, WorkerPools } from '@keel/plugin-sdk';
import { childEnv } from '../env/secret-env.js';

/** A pool as `/processes` shows it: `name` is `<plugin id>:<pool name>`. */
export interface WorkerPoolView {
  name: string;
  /** Threads running now (between `min_threads` and `max_threads`). */
  threads: number;
  min_threads: number;
  max_threads: number;
  /** Tasks waiting for a free thread. */
  queue: number;
  /** Tasks finished since the pool was made. */
  completed: number;
}

export class PoolRegistry {
  private readonly pools = new Map<string, Piscina>();

  /** The view one plugin gets: names are prefixed with its id. */
  scoped(pluginId: string): WorkerPools {
    return {
      create: (name, options) => this.create(`${pluginId}:${name}`, options),
      get: (name) => this.pools.get(`${pluginId}:${name}`),
    };
  }

  create(fullName: string, options: WorkerPoolOptions): Piscina {
    if (this.pools.has(fullName)) throw new Error(`worker pool '${fullName}' already exists.`);
    const pool = new Piscina({
      filename: typeof options.filename === 'string' ? options.filename : options.filename.href,
      name: 'default',
      minThreads: options.minThreads ?? 0,
      maxThreads: options.maxThreads ?? 1,
      idleTimeout: options.idleTimeout ?? 30_000,
      concurrentTasksPerWorker: options.concurrentTasksPerWorker ?? 1,
      workerData: options.workerData,
      // Workers never inherit Keel's secrets, even where the process environment still holds them (an embedding host).
      env: childEnv(),
    });
    this.pools.set(fullName, pool);
    return pool;
  }

  names(): string[] {
    return [...this.pools.keys()];
  }

  /** Each pool's threads and load now, for `GET /api/gateway/processes`. */
  describe(): WorkerPoolView[] {
    return [...this.pools].map(([name, pool]) => ({
      name,
      threads: pool.threads.length,
      min_threads: pool.options.minThreads,
      max_threads: pool.options.maxThreads,
      queue: pool.queueSize,
      completed: pool.completed,
    })).sort((a, b) => a.name.localeCompare(b.name));
  }

  async closeAll(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.allSettled(pools.map((p) => p.destroy()));
  }
}
