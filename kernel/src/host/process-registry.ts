/**
 * The processes sharing a data directory (`keel serve`, `keel runner`, one-shot commands), each
 * known by a heartbeat file it rewrites under `<data>/host/processes/`. A file whose heartbeat is
 * stale, or whose process is gone from this machine, is shown dead; once its last heartbeat is
 * `sweepAfterMs` old it is removed. A process that stops cleanly removes its own file.
 *
 * The file holds only what a listing shows: never the environment, a token or the command line.
 */
import { randomBytes } from 'node:crypto';
import { lstat, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';
import type { ProcessesConfig } from '../config/kernel-config.js';
import { makeDirectory } from '../storage/make-directory.js';
import type { WorkerPoolView } from '../workers/pool-registry.js';

/** What one heartbeat file holds. */
export interface ProcessRecord {
  id: string;
  pid: number;
  /** `server`, `runner`, or a one-shot command's name (`HostInfo.process`). */
  name: string;
  /** How the kernel was started (`HostInfo.mode`). */
  mode: string;
  hostname: string;
  kernel_version: string;
  started_at: string;
  heartbeat_at: string;
  /** Its worker pools at that heartbeat (absent in a file of an older kernel: none). */
  worker_pools?: WorkerPoolView[];
}

/** A process as `GET /processes` shows it. */
export interface ProcessView {
  id: string;
  pid: number;
  name: string;
  mode: string;
  hostname: string;
  kernel_version: string;
  started_at: string;
  last_heartbeat_at: string;
  heartbeat_age_s: number;
  alive: boolean;
  /** Why it is shown dead: its heartbeat is older than `staleAfterMs`, or no process has its pid on this machine. */
  dead_reason: 'heartbeat_stale' | 'process_gone' | null;
  /** True for the process answering. */
  current: boolean;
  /** Its worker pools: now for the process answering, else as of its last heartbeat. */
  worker_pools: WorkerPoolView[];
}

/** Heartbeat files are a few hundred bytes: a larger file is not one of ours and is not read. */
const MAX_RECORD_BYTES = 16 * 1024;
const PROCESS_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
/** `HostInfo.mode`. */
const MODES = new Set(['server', 'embedded', 'test', 'cli', 'headless']);
const RECORD_ID = /^[a-z][a-z0-9-]{0,80}-\d{1,10}-[0-9a-f]{8}$/;

export function processesDir(dataDir: string): string {
  return path.join(dataDir, 'host', 'processes');
}

export class ProcessRegistry {
  readonly id: string;
  private readonly dir: string;
  private readonly record: ProcessRecord;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;
  private warned = false;

  constructor(private readonly options: {
    dataDir: string;
    name: string;
    mode: string;
    kernelVersion: string;
    settings: ProcessesConfig;
    log: Logger;
    /** This process's worker pools now, written with each heartbeat. */
    pools: () => WorkerPoolView[];
  }) {
    const { heartbeatIntervalMs, staleAfterMs } = options.settings;
    if (staleAfterMs <= heartbeatIntervalMs) {
      throw new BootError(`server.processes.staleAfterMs (${staleAfterMs}) must exceed server.processes.heartbeatIntervalMs (${heartbeatIntervalMs}), or every process would be shown dead between two heartbeats.`);
    }
    // The name becomes part of a file name: only the kebab-case names processes go by.
    const name = PROCESS_NAME.test(options.name) ? options.name : 'process';
    this.id = `${name}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.dir = processesDir(options.dataDir);
    this.record = {
      id: this.id,
      pid: process.pid,
      name,
      mode: options.mode,
      hostname: os.hostname(),
      kernel_version: options.kernelVersion,
      started_at: new Date(this.now()).toISOString(),
      heartbeat_at: '',
    };
  }

  get startedAt(): Date {
    return new Date(this.record.started_at);
  }

  /** Writes the first heartbeat (the folder is made now, owner-only), then one every `heartbeatIntervalMs`. */
  async start(): Promise<void> {
    try {
      makeDirectory(this.dir);
    } catch (err) {
      // The listing is for the admin: a process that cannot register still serves (each write warns once).
      this.options.log.warn('cannot make the processes folder', { err, dir: this.dir });
    }
    await this.beat();
    await this.list().catch(() => undefined); // sweeps what crashed processes left
    this.timer = setInterval(() => void this.beat(), this.options.settings.heartbeatIntervalMs);
    this.timer.unref();
  }

  /** Writes a heartbeat now: the kernel calls it once its plugins started, so the pools they made are listed at once. */
  refresh(): Promise<void> {
    return this.beat();
  }

  /** Every process with a heartbeat file (this one first), after removing those dead long enough. */
  async list(): Promise<ProcessView[]> {
    const now = this.now();
    const { staleAfterMs, sweepAfterMs } = this.options.settings;
    // No folder (it could not be made): still the process answering.
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const views: ProcessView[] = [];
    for (const file of names) {
      const full = path.join(this.dir, file);
      const record = await readRecord(full, file);
      if (!record) {
        // Not a heartbeat (a write cut short, a stray file): left alone until it is old.
        await removeIfOlder(full, now - sweepAfterMs);
        continue;
      }
      const beatAt = Date.parse(record.heartbeat_at);
      const age = Math.max(0, now - beatAt);
      const current = record.id === this.id;
      const deadReason = current ? null : age > staleAfterMs ? 'heartbeat_stale' : record.hostname === os.hostname() && !pidRunning(record.pid) ? 'process_gone' : null;
      if (deadReason && age > sweepAfterMs) {
        await rm(full, { force: true }).catch(() => undefined);
        continue;
      }
      views.push({
        id: record.id, pid: record.pid, name: record.name, mode: record.mode, hostname: record.hostname, kernel_version: record.kernel_version,
        started_at: record.started_at, last_heartbeat_at: record.heartbeat_at, heartbeat_age_s: Math.round(age / 100) / 10,
        alive: deadReason === null, dead_reason: deadReason, current,
        worker_pools: current ? this.options.pools() : record.worker_pools ?? [],
      });
    }
    // Its file may be unwritable (a full disk): the process answering is still there.
    if (!views.some((v) => v.current)) views.push(this.currentView(now));
    return views.sort((a, b) => Number(b.current) - Number(a.current) || a.started_at.localeCompare(b.started_at) || a.id.localeCompare(b.id));
  }

  /** Stops the heartbeat and removes this process's file: a clean stop leaves nothing to show dead. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.writing;
    await rm(this.file(), { force: true }).catch(() => undefined);
  }

  private currentView(now: number): ProcessView {
    const { heartbeat_at: beat, worker_pools: _pools, ...record } = this.record;
    const last = beat || record.started_at;
    return {
      ...record, last_heartbeat_at: last, heartbeat_age_s: Math.round((now - Date.parse(last)) / 100) / 10, alive: true, dead_reason: null, current: true,
      worker_pools: this.options.pools(),
    };
  }

  private beat(): Promise<void> {
    // One write at a time, so a slow disk never lets an older heartbeat land after a newer one.
    this.writing = this.writing.then(async () => {
      if (this.stopped) return;
      const record: ProcessRecord = { ...this.record, heartbeat_at: new Date(this.now()).toISOString(), worker_pools: this.options.pools() };
      const tmp = `${this.file()}.tmp`;
      try {
        // Written then renamed, so a reader never sees half a file.
        await writeFile(tmp, JSON.stringify(record), { mode: 0o600 });
        await rename(tmp, this.file());
        this.record.heartbeat_at = record.heartbeat_at;
        this.warned = false;
      } catch (err) {
        if (!this.warned) this.options.log.warn('cannot write this process\'s heartbeat file', { err, dir: this.dir });
        this.warned = true;
      }
    });
    return this.writing;
  }

  private file(): string {
    return path.join(this.dir, `${this.id}.json`);
  }

  private now(): number {
    return Date.now();
  }
}

/** The record in `full`, or null when it is not a heartbeat file of the shape this kernel writes. */
async function readRecord(full: string, file: string): Promise<ProcessRecord | null> {
  if (!file.endsWith('.json')) return null;
  let handle;
  try {
    const info = await lstat(full);
    // A link could point anywhere: only regular files are read.
    if (!info.isFile() || info.size > MAX_RECORD_BYTES) return null;
    handle = await open(full, 'r');
    const value = JSON.parse(await handle.readFile('utf8')) as Partial<ProcessRecord>;
    return isRecord(value, file.slice(0, -'.json'.length)) ? value : null;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

function isRecord(value: Partial<ProcessRecord>, id: string): value is ProcessRecord {
  const text = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 256;
  return value !== null && typeof value === 'object' && value.id === id && RECORD_ID.test(id)
    // A pid of 0 or below names a process group to kill(): only real pids are checked.
    && Number.isSafeInteger(value.pid) && value.pid! > 0
    && text(value.name) && PROCESS_NAME.test(value.name!) && MODES.has(value.mode!) && text(value.hostname) && text(value.kernel_version)
    && text(value.started_at) && !Number.isNaN(Date.parse(value.started_at!)) && text(value.heartbeat_at) && !Number.isNaN(Date.parse(value.heartbeat_at!))
    && (value.worker_pools === undefined || (Array.isArray(value.worker_pools) && value.worker_pools.every(isPoolView)));
}

function isPoolView(value: unknown): value is WorkerPoolView {
  const pool = value as Record<string, unknown>;
  const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  return pool !== null && typeof pool === 'object' && typeof pool.name === 'string' && pool.name.length > 0 && pool.name.length <= 200
    && count(pool.threads) && count(pool.min_threads) && count(pool.max_threads) && count(pool.queue) && count(pool.completed)
    && Object.keys(pool).length === 6;
}

/** True when a process with this pid exists on this machine (signal 0 only checks; EPERM: it exists, another user's). */
function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeIfOlder(full: string, beforeMs: number): Promise<void> {
  try {
    const info = await lstat(full);
    if (info.mtimeMs < beforeMs) await rm(full, { force: true });
  } catch {
    // gone meanwhile
  }
}
