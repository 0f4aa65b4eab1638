/** This process and the others sharing its data directory, as the kernel's host routes answer them. */
import type { HostInfo } from '@keel/plugin-sdk';
import type { ProcessesConfig } from '../config/kernel-config.js';
import type { PoolRegistry, WorkerPoolView } from '../workers/pool-registry.js';
import type { DataDirUsageMeter } from './data-dir-usage.js';
import { hostStatus, type HostStatus } from './host-status.js';
import type { ProcessRegistry, ProcessView } from './process-registry.js';

export interface ProcessesAnswer {
  processes: ProcessView[];
  /** The worker pools of the process answering (other processes' pools are theirs to report). */
  worker_pools: WorkerPoolView[];
  heartbeat_interval_s: number;
  stale_after_s: number;
}

export class HostState {
  constructor(private readonly sources: {
    host: HostInfo;
    dataDir: string;
    registry: ProcessRegistry;
    pools: PoolRegistry;
    usage: DataDirUsageMeter;
    settings: ProcessesConfig;
    lastCommitId: () => number;
  }) {}

  status(): Promise<HostStatus> {
    const { host, dataDir, registry, usage, lastCommitId } = this.sources;
    return hostStatus({ host, dataDir, registry, usage, lastCommitId });
  }

  async processes(): Promise<ProcessesAnswer> {
    const { registry, pools, settings } = this.sources;
    return {
      processes: await registry.list(),
      worker_pools: pools.describe(),
      heartbeat_interval_s: settings.heartbeatIntervalMs / 1000,
      stale_after_s: settings.staleAfterMs / 1000,
    };
  }
}
