/**
 * The relay's traffic log (reference §5): every part writes records through `write`, which never
 * throws and never waits. A record is only queued there: it is redacted and serialised once the
 * current I/O callback is done (pending-records.ts), so a call's answer leaves before its records
 * cost anything; the lines are appended in batches (at most every `APPEND_DELAY_MS`) to the hour
 * file (log-file.ts), one serial queue doing every file operation (appends, rotation, cleanup,
 * policy saves) so they never race inside this process. The policy in force is live-policy.ts's,
 * the counters and warnings log-health.ts's.
 *
 * Storage failures never reach the caller: the record is counted in `dropped_records`, `last_error`
 * says why and a warning is logged at most once a minute. While a failed cleanup stands, records
 * are dropped rather than growing the logs past their budget, until the next due pass or a policy
 * change (reference §5.4).
 */
import { mkdir } from 'node:fs/promises';
import type { Clock, Logger } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { TrafficRecord, TrafficSink } from '../contracts.js';
import { cleanLogs } from './cleanup.js';
import { LogFile } from './log-file.js';
import { LogHealth, type LoggingStatus } from './log-health.js';
import { hourFilePath, scanManagedFiles } from './log-layout.js';
import { NotableRecords } from './notable-records.js';
import { LivePolicy } from './live-policy.js';
import { omissionLine, PendingRecords, type PendingLine } from './pending-records.js';
import { checkPartialPolicy, MIB, type RetentionPolicy } from './retention-policy.js';

export type { LoggingStatus } from './log-health.js';

export interface TrafficLogOptions {
  /** Absolute folder of the logs. */
  logsDir: string;
  settings: RelayConfig['logging'];
  clock: Clock;
  log: Logger;
}

/** Lines wait at most this long for their batch: one append (and one policy and file check) serves many calls. */
const APPEND_DELAY_MS = 10;

export class TrafficLog implements TrafficSink {
  readonly streamLines: boolean;
  readonly logsDir: string;
  private readonly settings: RelayConfig['logging'];
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly live: LivePolicy;
  private readonly notable: NotableRecords;
  private readonly pending: PendingRecords;
  private readonly file = new LogFile();
  private readonly health: LogHealth;

  private drainQueued = false;
  private appendQueued = false;
  /** Every file operation runs in this chain, one at a time. */
  private chain: Promise<void> = Promise.resolve();
  private hourPath: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  private cleanupDue = false;
  private cleanupFailed = false;
  private lastCleanupMs: number | null = null;

  constructor(options: TrafficLogOptions) {
    this.logsDir = options.logsDir;
    this.settings = options.settings;
    this.streamLines = options.settings.streamLines;
    this.clock = options.clock;
    this.log = options.log;
    this.health = new LogHealth(options.clock, options.log, options.logsDir);
    const configured = { retention_days: options.settings.retentionDays, max_total_mb: options.settings.maxTotalMb, max_file_mb: options.settings.maxFileMb };
    this.live = new LivePolicy(this.logsDir, configured, (message) => this.health.storageError(message), () => {
      this.cleanupDue = true;
    });
    this.notable = new NotableRecords(options.settings.recentRecords);
    const full = `the traffic log buffer is full (${options.settings.maxBufferedMb} MiB, setting logging.maxBufferedMb): the disk is not keeping up`;
    this.pending = new PendingRecords(options.settings.maxBufferedMb * MIB, full, this.notable, (message) => this.health.dropped(1, message));
  }

  get policyPath(): string {
    return this.live.store.policyPath;
  }

  /** The policy in force. */
  private get policy(): RetentionPolicy {
    return this.live.policy;
  }

  write(record: TrafficRecord): void {
    try {
      this.pending.add(record, this.clock.nowMs());
      this.scheduleDrain();
    } catch (err) {
      this.health.dropped(1, `a traffic record could not be queued (${(err as Error).message})`);
    }
  }

  /** The last `n` notable records (adaptations, failovers, retries, stream errors, account events), oldest first, redacted. */
  recent(n: number): Array<Record<string, unknown>> {
    this.pending.drain();
    return this.notable.recent(n);
  }

  /** The status from what this process knows now (usage as of the last pass plus what it appended since); never waits. */
  status(): LoggingStatus {
    this.pending.drain();
    return this.health.report(this.policy, this.live.source, this.live.store.policyPath, this.settings.cleanupIntervalSeconds);
  }

  /**
   * The status with the policy read from storage and the usage measured now (`GET
   * /v1/relay/logging`). Throws `PolicyStorageError` when the policy cannot be read.
   */
  async describe(): Promise<LoggingStatus> {
    return this.serial(async () => {
      await this.live.reload(true);
      const scan = await scanManagedFiles(this.logsDir);
      this.health.usageBytes = scan.files.reduce((sum, f) => sum + f.size, 0);
      this.health.fileCount = scan.files.length;
      return this.status();
    });
  }

  /**
   * Merges `input` (a client's partial policy) over the effective policy, saves it and applies it
   * with a cleanup pass. Throws `InvalidPolicyError` (nothing saved) or `PolicyStorageError`
   * (previous policy kept); a failed cleanup only shows in `last_error`.
   */
  async updatePolicy(input: unknown): Promise<LoggingStatus> {
    const partial = checkPartialPolicy(input);
    return this.serial(async () => {
      await this.live.update(partial);
      await this.cleanup();
      return this.status();
    });
  }

  /** Starts the background maintenance: a pass now and every `cleanupIntervalSeconds` (including when idle). */
  start(): void {
    if (this.timer) return;
    this.stopped = false;
    if (this.policy.max_file_mb > this.policy.max_total_mb) {
      this.log.warn(`traffic log: logging.maxFileMb (${this.policy.max_file_mb}) is above logging.maxTotalMb (${this.policy.max_total_mb}): the total budget cannot hold one full file; lower maxFileMb`);
    }
    void this.serial(() => this.maintain());
    this.timer = setInterval(() => void this.serial(() => this.maintain()), this.settings.cleanupIntervalSeconds * 1000);
    this.timer.unref();
  }

  /** Stops the maintenance, appends what is buffered and closes the file. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    await this.flush();
    await this.serial(() => this.file.close());
  }

  /** Resolves once every record written before the call has been appended (or dropped). */
  async flush(): Promise<void> {
    await this.serial(() => this.appendPending());
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.chain.then(task);
    this.chain = run.then(() => undefined, () => undefined);
    return run;
  }

  /** Serialises what `write` queued once the current callback is done, then queues a batch append. */
  private scheduleDrain(): void {
    if (this.drainQueued) return;
    this.drainQueued = true;
    setImmediate(() => {
      this.drainQueued = false;
      this.pending.drain();
      if (this.appendQueued) return;
      this.appendQueued = true;
      // Not unref'd: a process ending on its own still appends what it logged (10 ms later at most).
      setTimeout(() => void this.serial(() => this.appendPending()), APPEND_DELAY_MS);
    });
  }

  private async appendPending(): Promise<void> {
    this.appendQueued = false;
    const batch = this.pending.take();
    if (batch.length === 0) return;
    try {
      await this.live.reload(false);
      await this.file.check();
    } catch {
      // reloadPolicy/check record their own failures; the batch still goes to the current policy
    }
    let chunk: string[] = [];
    let chunkBytes = 0;
    const writeChunk = async (): Promise<void> => {
      if (chunk.length === 0) return;
      const lines = chunk;
      chunk = [];
      chunkBytes = 0;
      await this.appendLines(lines);
    };
    for (const item of batch) {
      const target = this.hourFileOf(item.ms);
      if (this.hourPath !== target) {
        await writeChunk();
        await this.file.close();
        // A new hour is a reason to clean (not the very first file of this process: start cleans).
        if (this.hourPath !== null) this.cleanupDue = true;
        this.hourPath = target;
      }
      if (this.cleanupFailed && !this.cleanupDue && !this.cleanupIsDue()) {
        this.health.droppedRecords += 1;
        continue;
      }
      const line = this.fitLine(item);
      const bytes = line.length + 1;
      try {
        await this.openFile(target);
        const size = this.file.size + chunkBytes;
        if (size > 0 && size + bytes > this.policy.max_file_mb * MIB) {
          await writeChunk();
          if (await this.file.rotate()) this.cleanupDue = true;
          await this.openFile(target);
        }
        if (this.cleanupDue || this.cleanupIsDue()) {
          await writeChunk();
          await this.cleanup();
          if (!this.file.isOpen) await this.openFile(target);
        }
      } catch (err) {
        await writeChunk();
        await this.file.close();
        this.health.dropped(1, `cannot write ${target}: ${(err as Error).message}`);
        continue;
      }
      chunk.push(line);
      chunkBytes += bytes;
    }
    await writeChunk();
    // Records written while the plugin stops are appended, and the file is not left open.
    if (this.stopped) await this.file.close();
  }

  private hourCache = { hour: Number.NaN, path: '' };

  /** The hour file of `ms`, worked out once per hour. */
  private hourFileOf(ms: number): string {
    const hour = Math.floor(ms / 3_600_000);
    if (hour !== this.hourCache.hour) this.hourCache = { hour, path: hourFilePath(this.logsDir, ms) };
    return this.hourCache.path;
  }

  /** The line itself, or an omission record when it alone is larger than a file may be. */
  private fitLine(item: PendingLine): string {
    if (item.line.length + 1 <= this.policy.max_file_mb * MIB) return item.line;
    this.health.oversizedRecords += 1;
    return omissionLine(item, this.policy.max_file_mb);
  }

  private async appendLines(lines: string[]): Promise<void> {
    const text = `${lines.join('\n')}\n`;
    try {
      await this.file.append(text);
      this.health.usageBytes += text.length;
    } catch (err) {
      this.health.dropped(lines.length, (err as Error).message);
    }
  }

  /** Opens the hour file `target` (log-file.ts checks), counting a new one. */
  private async openFile(target: string): Promise<void> {
    if (await this.file.open(target)) this.health.fileCount += 1;
  }

  /** Startup and periodic maintenance: pick up a changed policy, rotate an oversized current file, clean. */
  private async maintain(): Promise<void> {
    try {
      await mkdir(this.logsDir, { recursive: true, mode: 0o700 });
      await this.live.reload(false);
      await this.file.check();
      const current = hourFilePath(this.logsDir, this.clock.nowMs());
      if (this.file.isOpen && this.file.path !== current) await this.file.close();
      await this.file.rotateOversized(current, this.policy.max_file_mb * MIB);
    } catch (err) {
      this.health.storageError(`log maintenance failed: ${(err as Error).message}`);
    }
    await this.cleanup();
  }

  private cleanupIsDue(): boolean {
    return this.lastCleanupMs === null || this.clock.nowMs() - this.lastCleanupMs >= this.settings.cleanupIntervalSeconds * 1000;
  }

  private async cleanup(): Promise<void> {
    this.cleanupDue = false;
    const now = this.clock.nowMs();
    try {
      const current = this.hourPath ?? hourFilePath(this.logsDir, now);
      const outcome = await cleanLogs(this.logsDir, this.policy, current, now);
      this.health.deletedFiles += outcome.deletedFiles;
      this.health.deletedBytes += outcome.deletedBytes;
      this.health.usageBytes = outcome.usageBytes;
      this.health.fileCount = outcome.fileCount;
      this.cleanupFailed = outcome.errors.length > 0;
      this.health.lastError = this.cleanupFailed ? outcome.errors.slice(0, 3).join('; ') : null;
      if (this.cleanupFailed) this.health.warn(`traffic log cleanup failed: ${this.health.lastError}`);
    } catch (err) {
      this.cleanupFailed = true;
      this.health.storageError(`traffic log cleanup failed: ${(err as Error).message}`);
    }
    this.lastCleanupMs = now;
    this.health.lastCleanupAt = new Date(now).toISOString();
  }
}
