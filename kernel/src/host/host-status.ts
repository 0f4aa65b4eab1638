/**
 * What `GET /api/gateway/host/status` reports about the machine and this process: names, versions,
 * uptime, memory, load, and the data directory's free disk and size. Nothing from the environment
 * or the command line: those can hold secrets.
 */
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { HostInfo } from '@keel/plugin-sdk';
import { SDK_VERSION } from '@keel/plugin-sdk';
import type { DataDirUsage, DataDirUsageMeter } from './data-dir-usage.js';

export interface HostStatus {
  hostname: string;
  platform: string;
  arch: string;
  os_release: string;
  versions: { keel: string; sdk: string; node: string; v8: string };
  process: {
    id: string;
    pid: number;
    name: string;
    mode: string;
    started_at: string;
    uptime_s: number;
    memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number; external_bytes: number };
  };
  system: {
    uptime_s: number;
    cpus: number;
    load_average: number[];
    memory: { total_bytes: number; free_bytes: number };
  };
  data_dir: {
    path: string;
    disk: { total_bytes: number; free_bytes: number } | null;
    usage: DataDirUsage;
    storage: { last_commit_id: number };
  };
}

export interface HostStatusSources {
  host: HostInfo;
  dataDir: string;
  /** This process in `/processes`: its id and when it registered. */
  registry: { id: string; startedAt: Date };
  usage: DataDirUsageMeter;
  /** The id of the LMDB environment's last commit (by any process sharing it). */
  lastCommitId: () => number;
}

export async function hostStatus(sources: HostStatusSources): Promise<HostStatus> {
  const memory = process.memoryUsage();
  const [disk, usage] = await Promise.all([diskOf(sources.dataDir), sources.usage.measure()]);
  return {
    hostname: os.hostname(),
    platform: process.platform,
    arch: process.arch,
    os_release: os.release(),
    versions: { keel: sources.host.kernelVersion, sdk: SDK_VERSION, node: process.version, v8: process.versions.v8 },
    process: {
      id: sources.registry.id,
      pid: process.pid,
      name: sources.host.process,
      mode: sources.host.mode,
      started_at: sources.registry.startedAt.toISOString(),
      uptime_s: Math.round((Date.now() - sources.registry.startedAt.getTime()) / 1000),
      memory: { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed, heap_total_bytes: memory.heapTotal, external_bytes: memory.external },
    },
    system: {
      uptime_s: Math.round(os.uptime()),
      cpus: os.availableParallelism(),
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
      memory: { total_bytes: os.totalmem(), free_bytes: os.freemem() },
    },
    data_dir: { path: sources.dataDir, disk, usage, storage: { last_commit_id: sources.lastCommitId() } },
  };
}

/** The file system's size and the space this user may still write (null where the platform cannot say). */
async function diskOf(dir: string): Promise<{ total_bytes: number; free_bytes: number } | null> {
  try {
    const fs = await statfs(dir);
    return { total_bytes: fs.blocks * fs.bsize, free_bytes: fs.bavail * fs.bsize };
  } catch {
    return null;
  }
}
