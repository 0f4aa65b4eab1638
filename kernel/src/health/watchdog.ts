/**
 * The event-loop watchdog. The main thread stamps a shared clock a few times a second; a monitor
 * thread watches the stamp, so a hang is noticed while the loop is still blocked: the monitor
 * records it (with the main thread's top stack frame when the inspector can reach it) and writes
 * a dump under `<data>/host/hangs/`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HangRecord, Logger, Watchdog, WatchdogStatus } from '@keel/plugin-sdk';
import { childEnv } from '../env/secret-env.js';

export interface MonitorData {
  process: string;
  shared: SharedArrayBuffer;
  limitMs: number;
  dumpDir: string;
}

export type { HangRecord, WatchdogStatus };

export type MonitorMessage = { type: 'hang'; record: HangRecord } | { type: 'hang-end'; blocked_s: number };

const TICK_MS = 200;

export class EventLoopWatchdog implements Watchdog {
  private readonly shared = new SharedArrayBuffer(8);
  private readonly stamp = new BigInt64Array(this.shared);
  private timer: NodeJS.Timeout | undefined;
  private worker: Worker | undefined;
  private hang: HangRecord | null = null;

  private readonly dumpDir: string;

  /** `process` names this process in its hang records and dump files (`HostInfo.process`). */
  constructor(private readonly options: { enabled: boolean; limitS: number; dataDir: string; log: Logger; process: string }) {
    this.dumpDir = path.join(options.dataDir, 'host', 'hangs');
  }

  start(): void {
    if (!this.options.enabled || this.timer) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
    const workerData: MonitorData = { process: this.options.process, shared: this.shared, limitMs: this.options.limitS * 1000, dumpDir: this.dumpDir };
    this.worker = new Worker(new URL('./watchdog-monitor.js', import.meta.url), { workerData, env: childEnv() });
    this.worker.unref();
    this.worker.on('message', (msg: MonitorMessage) => this.onMessage(msg));
    this.worker.on('error', (err) => this.options.log.warn('watchdog monitor failed', { err }));
  }

  status(): WatchdogStatus {
    const enabled = this.timer !== undefined;
    return {
      enabled,
      limit_s: this.options.limitS,
      last_tick_age_s: enabled ? Math.max(0, Date.now() - Number(Atomics.load(this.stamp, 0))) / 1000 : null,
    };
  }

  lastHang(): HangRecord | null {
    return this.hang;
  }

  /** Read from the dump files, so it sees the hangs of another process on the same data dir. */
  lastHangOf(process: string): HangRecord | null {
    let names: string[];
    try {
      // `hang-<ISO time, ending in Z>-<process>.json`; process names are lower case, so `Z-` ends the time.
      names = readdirSync(this.dumpDir).filter((n) => n.endsWith(`Z-${process}.json`)).sort();
    } catch {
      return null; // no dump yet
    }
    for (const name of names.reverse()) {
      try {
        const { frames: _frames, ...record } = JSON.parse(readFileSync(path.join(this.dumpDir, name), 'utf8')) as HangRecord & { frames?: unknown };
        return record;
      } catch {
        // a dump being rewritten or cut short: try the one before
      }
    }
    return null;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private tick(): void {
    Atomics.store(this.stamp, 0, BigInt(Date.now()));
  }

  private onMessage(msg: MonitorMessage): void {
    if (msg.type === 'hang') {
      this.hang = msg.record;
      this.options.log.warn('event loop was blocked', { ...msg.record });
    } else if (this.hang) {
      this.hang = { ...this.hang, blocked_s: msg.blocked_s };
    }
  }
}
