/**
 * The relay's traffic log (reference §5): every part writes records through `write`, which never
 * throws and never waits. A record is only queued there: it is redacted and serialised once the
 * current I/O callback is done (pending-records.ts), so a call's answer leaves before its records
 * cost anything; the lines are appended in batches (at most every `APPEND_DELAY_MS`) to the hour
 * file (log-file.ts), one serial queue doing every file operation (appends, rotation, cleanup,
 * policy saves) so they never race inside this process.
 *
 * Storage failures never reach the caller: the record is counted in `dropped_records`, `last_error`
 * says why and a warning is logged at most once a minute. While a failed cleanup stands, records
 * are dropped rather than growing the logs past their budget, until the next due pass or a policy
 * change (reference §5.4).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { Clock, Logger } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { TrafficRecord, TrafficSink } from '../contracts.js';
import { cleanLogs } from './cleanup.js';
import { LogFile } from './log-file.js';
import { hourFilePath, scanManagedFiles } from './log-layout.js';
import { NotableRecords } from './notable-records.js';
import { PendingRecords, type PendingLine } from './pending-records.js';
import { serializeRecord } from './redaction.js';
import { checkPartialPolicy, MIB, PolicyStorageError, RetentionPolicyStore, type PolicySource, type RetentionPolicy } from './retention-policy.js';

/** The logging status of `GET`/`PUT /v1/relay/logging` (reference §1.8, seed §2C). */
export interface LoggingStatus {
  policy: RetentionPolicy;
  policy_source: PolicySource;
  policy_path: string;
  logs_dir: string;
  usage_bytes: number;
  file_count: number;
  over_budget: boolean;
  cleanup_interval_seconds: number;
  last_cleanup_at: string | null;
  deleted_files: number;
  deleted_bytes: number;
  oversized_records: number;
  dropped_records: number;
  last_error: string | null;
}

export interface TrafficLogOptions {
  /** Absolute folder of the logs. */
  logsDir: string;
  settings: RelayConfig['logging'];
  clock: Clock;
  log: Logger;
}

const WARN_EVERY_MS = 60_000;
/** Lines wait at most this long for their batch: one append (and one policy and file check) serves many calls. */
const APPEND_DELAY_MS = 10;

export class TrafficLog implements TrafficSink {
  readonly streamLines: boolean;
  readonly logsDir: string;
  private readonly settings: RelayConfig['logging'];
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly store: RetentionPolicyStore;
  private readonly notable: NotableRecords;
  private readonly pending: PendingRecords;
  private readonly file = new LogFile();

  private policy: RetentionPolicy;
  private policySource: PolicySource = 'config';
  /** The saved file's version last read (`undefined`: not read yet). */
  private policySignature: string | null | undefined;

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
  private lastCleanupAt: string | null = null;
  private usageBytes = 0;
  private fileCount = 0;
  private deletedFiles = 0;
  private deletedBytes = 0;
  private oversizedRecords = 0;
  private droppedRecords = 0;
  private lastError: string | null = null;
  private lastWarnMs = -Infinity;

  constructor(options: TrafficLogOptions) {
    this.logsDir = options.logsDir;
    this.settings = options.settings;
    this.streamLines = options.settings.streamLines;
    this.clock = options.clock;
    this.log = options.log;
    this.policy = { retention_days: options.settings.retentionDays, max_total_mb: options.settings.maxTotalMb, max_file_mb: options.settings.maxFileMb };
    this.store = new RetentionPolicyStore(this.logsDir, { ...this.policy });
    this.notable = new NotableRecords(options.settings.recentRecords);
    const full = `the traffic log buffer is full (${options.settings.maxBufferedMb} MiB, setting logging.maxBufferedMb): the disk is not keeping up`;
    this.pending = new PendingRecords(options.settings.maxBufferedMb * MIB, full, this.notable, (message) => this.dropped(1, message));
  }

  get policyPath(): string {
    return this.store.policyPath;
  }

  write(record: TrafficRecord): void {
    try {
      this.pending.add(record, this.clock.nowMs());
      this.scheduleDrain();
    } catch (err) {
      this.dropped(1, `a traffic record could not be queued (${(err as Error).message})`);
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
    return {
      policy: { ...this.policy },
      policy_source: this.policySource,
      policy_path: this.store.policyPath,
      logs_dir: this.logsDir,
      usage_bytes: this.usageBytes,
      file_count: this.fileCount,
      over_budget: this.usageBytes > this.policy.max_total_mb * MIB,
      cleanup_interval_seconds: this.settings.cleanupIntervalSeconds,
      last_cleanup_at: this.lastCleanupAt,
      deleted_files: this.deletedFiles,
      deleted_bytes: this.deletedBytes,
      oversized_records: this.oversizedRecords,
      dropped_records: this.droppedRecords,
      last_error: this.lastError,
    };
  }

  /**
   * The status with the policy read from storage and the usage measured now (`GET
   * /v1/relay/logging`). Throws `PolicyStorageError` when the policy cannot be read.
   */
  async describe(): Promise<LoggingStatus> {
    return this.serial(async () => {
      await this.reloadPolicy(true);
      const scan = await scanManagedFiles(this.logsDir);
      this.usageBytes = scan.files.reduce((sum, f) => sum + f.size, 0);
      this.fileCount = scan.files.length;
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
      const saved = await this.store.update(partial);
      this.adoptPolicy(saved.policy, saved.source, saved.signature);
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
      const timer = setTimeout(() => void this.serial(() => this.appendPending()), APPEND_DELAY_MS);
      timer.unref();
    });
  }

  private async appendPending(): Promise<void> {
    this.appendQueued = false;
    const batch = this.pending.take();
    if (batch.length === 0) return;
    try {
      await this.reloadPolicy(false);
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
      const target = hourFilePath(this.logsDir, item.ms);
      if (this.hourPath !== target) {
        await writeChunk();
        await this.file.close();
        // A new hour is a reason to clean (not the very first file of this process: start cleans).
        if (this.hourPath !== null) this.cleanupDue = true;
        this.hourPath = target;
      }
      if (this.cleanupFailed && !this.cleanupDue && !this.cleanupIsDue()) {
        this.droppedRecords += 1;
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
        this.dropped(1, `cannot write ${target}: ${(err as Error).message}`);
        continue;
      }
      chunk.push(line);
      chunkBytes += bytes;
    }
    await writeChunk();
    // Records written while the plugin stops are appended, and the file is not left open.
    if (this.stopped) await this.file.close();
  }

  /** The line itself, or an omission record when it alone is larger than a file may be. */
  private fitLine(item: PendingLine): string {
    const maxBytes = this.policy.max_file_mb * MIB;
    if (item.line.length + 1 <= maxBytes) return item.line;
    this.oversizedRecords += 1;
    const omission: Record<string, unknown> = {};
    if (typeof item.requestId === 'string') omission.request_id = item.requestId.slice(0, 256);
    if (typeof item.phase === 'string') omission.phase = item.phase.slice(0, 128);
    omission.log_record_omitted = `record larger than max_file_mb (${this.policy.max_file_mb} MiB)`;
    omission.original_bytes = item.line.length + 1;
    omission.sha256 = createHash('sha256').update(item.line).digest('hex');
    omission.logged_at = new Date(item.ms).toISOString();
    return serializeRecord(omission);
  }

  private async appendLines(lines: string[]): Promise<void> {
    const text = `${lines.join('\n')}\n`;
    try {
      await this.file.append(text);
      this.usageBytes += text.length;
    } catch (err) {
      this.dropped(lines.length, (err as Error).message);
    }
  }

  /** Opens the hour file `target` (log-file.ts checks), counting a new one. */
  private async openFile(target: string): Promise<void> {
    if (await this.file.open(target)) this.fileCount += 1;
  }

  /** Startup and periodic maintenance: pick up a changed policy, rotate an oversized current file, clean. */
  private async maintain(): Promise<void> {
    try {
      await mkdir(this.logsDir, { recursive: true, mode: 0o700 });
      await this.reloadPolicy(false);
      await this.file.check();
      const current = hourFilePath(this.logsDir, this.clock.nowMs());
      if (this.file.isOpen && this.file.path !== current) await this.file.close();
      await this.file.rotateOversized(current, this.policy.max_file_mb * MIB);
    } catch (err) {
      this.storageError(`log maintenance failed: ${(err as Error).message}`);
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
      this.deletedFiles += outcome.deletedFiles;
      this.deletedBytes += outcome.deletedBytes;
      this.usageBytes = outcome.usageBytes;
      this.fileCount = outcome.fileCount;
      this.cleanupFailed = outcome.errors.length > 0;
      this.lastError = this.cleanupFailed ? outcome.errors.slice(0, 3).join('; ') : null;
      if (this.cleanupFailed) this.warn(`traffic log cleanup failed: ${this.lastError}`);
    } catch (err) {
      this.cleanupFailed = true;
      this.storageError(`traffic log cleanup failed: ${(err as Error).message}`);
    }
    this.lastCleanupMs = now;
    this.lastCleanupAt = new Date(now).toISOString();
  }

  /**
   * Reads the saved policy again when its file changed (another process, a PUT). With `strict`, a
   * policy that cannot be read throws `PolicyStorageError`; otherwise the previous one stays and
   * `last_error` says why.
   */
  private async reloadPolicy(strict: boolean): Promise<void> {
    try {
      const signature = await this.store.signature();
      if (signature === this.policySignature && !strict) return;
      const loaded = await this.store.load();
      if (loaded.signature === this.policySignature) return;
      this.adoptPolicy(loaded.policy, loaded.source, loaded.signature);
    } catch (err) {
      if (!(err instanceof PolicyStorageError)) throw err;
      this.storageError(err.message);
      if (strict) throw err;
      // Not read again until the file changes: one error, not one per batch.
      this.policySignature = await this.store.signature().catch(() => this.policySignature);
    }
  }

  private adoptPolicy(policy: RetentionPolicy, source: PolicySource, signature: string | null): void {
    const first = this.policySignature === undefined;
    this.policy = policy;
    this.policySource = source;
    this.policySignature = signature;
    if (!first) this.cleanupDue = true;
  }

  private dropped(count: number, message: string): void {
    this.droppedRecords += count;
    this.storageError(message);
  }

  private storageError(message: string): void {
    this.lastError = message;
    this.warn(message);
  }

  private warn(message: string): void {
    const now = this.clock.nowMs();
    if (now - this.lastWarnMs < WARN_EVERY_MS) return;
    this.lastWarnMs = now;
    this.log.warn(`traffic log: ${message} (serving goes on; records are dropped until storage recovers)`, { logs_dir: this.logsDir });
  }
}
