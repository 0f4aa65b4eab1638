/**
 * The relay's traffic log (reference §5): every part writes records through `write`, which never
 * throws and never waits. A record is redacted and serialised at once (so later changes to the
 * objects it names cannot leak into the log), then buffered; batches are appended asynchronously to
 * the hour file, one serial queue doing every file operation (appends, rotation, cleanup, policy
 * saves) so they never race inside this process.
 *
 * Storage failures never reach the caller: the record is counted in `dropped_records`, `last_error`
 * says why and a warning is logged at most once a minute. While a failed cleanup stands, records
 * are dropped rather than growing the logs past their budget, until the next due pass or a policy
 * change (reference §5.4).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Clock, Logger } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import type { TrafficRecord, TrafficSink } from '../contracts.js';
import { cleanLogs } from './cleanup.js';
import { hourFilePath, rotatedPath, scanManagedFiles } from './log-layout.js';
import { NOTABLE_PHASES, NotableRecords } from './notable-records.js';
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

interface PendingRecord {
  line: string;
  ms: number;
  phase: unknown;
  requestId: unknown;
}

interface OpenFile {
  path: string;
  handle: FileHandle;
  ino: number;
  size: number;
}

const WARN_EVERY_MS = 60_000;

export class TrafficLog implements TrafficSink {
  readonly streamLines: boolean;
  readonly logsDir: string;
  private readonly settings: RelayConfig['logging'];
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly store: RetentionPolicyStore;
  private readonly notable: NotableRecords;
  private readonly maxBufferedBytes: number;

  private policy: RetentionPolicy;
  private policySource: PolicySource = 'config';
  /** The saved file's version last read (`undefined`: not read yet). */
  private policySignature: string | null | undefined;

  private pending: PendingRecord[] = [];
  private pendingBytes = 0;
  private flushQueued = false;
  /** Every file operation runs in this chain, one at a time. */
  private chain: Promise<void> = Promise.resolve();
  private file: OpenFile | null = null;
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
    this.maxBufferedBytes = options.settings.maxBufferedMb * MIB;
  }

  get policyPath(): string {
    return this.store.policyPath;
  }

  write(record: TrafficRecord): void {
    try {
      const ms = this.clock.nowMs();
      const line = serializeRecord(record.logged_at === undefined ? { ...record, logged_at: new Date(ms).toISOString() } : record);
      if (typeof record.phase === 'string' && NOTABLE_PHASES.has(record.phase)) this.notable.add(line);
      if (this.pendingBytes + line.length > this.maxBufferedBytes) {
        this.dropped(1, `the traffic log buffer is full (${this.settings.maxBufferedMb} MiB, setting logging.maxBufferedMb): the disk is not keeping up`);
        return;
      }
      this.pending.push({ line, ms, phase: record.phase, requestId: record.request_id });
      this.pendingBytes += line.length + 1;
      this.scheduleFlush();
    } catch (err) {
      this.dropped(1, `a traffic record could not be serialised (${(err as Error).message})`);
    }
  }

  /** The last `n` notable records (adaptations, failovers, retries, stream errors, account events), oldest first, redacted. */
  recent(n: number): Array<Record<string, unknown>> {
    return this.notable.recent(n);
  }

  /** The status from what this process knows now (usage as of the last pass plus what it appended since); never waits. */
  status(): LoggingStatus {
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
    await this.serial(() => this.closeFile());
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

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      void this.serial(() => this.appendPending());
    });
  }

  private async appendPending(): Promise<void> {
    this.flushQueued = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    this.pendingBytes = 0;
    try {
      await this.reloadPolicy(false);
      await this.checkOpenFile();
    } catch {
      // reloadPolicy/checkOpenFile record their own failures; the batch still goes to the current policy
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
        await this.closeFile();
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
        const size = this.file!.size + chunkBytes;
        if (size > 0 && size + bytes > this.policy.max_file_mb * MIB) {
          await writeChunk();
          await this.rotate();
          await this.openFile(target);
        }
        if (this.cleanupDue || this.cleanupIsDue()) {
          await writeChunk();
          await this.cleanup();
          if (!this.file) await this.openFile(target);
        }
      } catch (err) {
        await writeChunk();
        await this.closeFile();
        this.dropped(1, `cannot write ${target}: ${(err as Error).message}`);
        continue;
      }
      chunk.push(line);
      chunkBytes += bytes;
    }
    await writeChunk();
    // Records written while the plugin stops are appended, and the file is not left open.
    if (this.stopped) await this.closeFile();
  }

  /** The line itself, or an omission record when it alone is larger than a file may be. */
  private fitLine(item: PendingRecord): string {
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
    const file = this.file;
    if (!file) {
      this.dropped(lines.length, 'the log file is not open');
      return;
    }
    const text = `${lines.join('\n')}\n`;
    try {
      await file.handle.appendFile(text);
      file.size += text.length;
      this.usageBytes += text.length;
    } catch (err) {
      await this.closeFile();
      this.dropped(lines.length, `cannot append to ${file.path}: ${(err as Error).message}`);
    }
  }

  /**
   * Opens `target` for appending unless it is open: the year and month folders must be real
   * folders, the file is never followed if it is a symlink and must have exactly one link.
   */
  private async openFile(target: string): Promise<void> {
    if (this.file?.path === target) return;
    await this.closeFile();
    const monthDir = path.dirname(target);
    await mkdir(monthDir, { recursive: true, mode: 0o700 });
    for (const dir of [path.dirname(monthDir), monthDir]) {
      const s = await lstat(dir);
      if (!s.isDirectory()) throw new Error(`${dir} is a symlink or not a folder; traffic logs are never written through one`);
    }
    const handle = await open(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
    try {
      const s = await handle.stat();
      if (!s.isFile()) throw new Error(`${target} is not a regular file`);
      if (s.nlink !== 1) throw new Error(`${target} has ${s.nlink} hard links; traffic logs are never written to a shared file`);
      const created = s.size === 0;
      this.file = { path: target, handle, ino: s.ino, size: s.size };
      if (created) this.fileCount += 1;
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /** Closes the open file if its path no longer names it (renamed, replaced, hard-linked by someone else). */
  private async checkOpenFile(): Promise<void> {
    const file = this.file;
    if (!file) return;
    try {
      const s = await lstat(file.path);
      if (s.ino === file.ino && s.nlink === 1 && s.isFile()) return;
    } catch {
      // gone: reopened below on the next record
    }
    await this.closeFile();
  }

  private async closeFile(): Promise<void> {
    const file = this.file;
    this.file = null;
    if (file) await file.handle.close().catch(() => undefined);
  }

  /** Renames the full hour file to `DD-HH.<32 hex>.log`; the next record starts a fresh one. */
  private async rotate(): Promise<void> {
    const file = this.file;
    if (!file) return;
    await this.closeFile();
    await rename(file.path, rotatedPath(file.path));
    this.cleanupDue = true;
  }

  /** Startup and periodic maintenance: pick up a changed policy, rotate an oversized current file, clean. */
  private async maintain(): Promise<void> {
    try {
      await mkdir(this.logsDir, { recursive: true, mode: 0o700 });
      await this.reloadPolicy(false);
      await this.checkOpenFile();
      const current = hourFilePath(this.logsDir, this.clock.nowMs());
      if (this.file && this.file.path !== current) await this.closeFile();
      await this.rotateOversized(current);
    } catch (err) {
      this.storageError(`log maintenance failed: ${(err as Error).message}`);
    }
    await this.cleanup();
  }

  /** A current file already over the size limit (from an older policy or version) is rotated. */
  private async rotateOversized(current: string): Promise<void> {
    let size: number;
    try {
      const s = await lstat(current);
      if (!s.isFile() || s.nlink !== 1) return;
      size = s.size;
    } catch {
      return;
    }
    if (size <= this.policy.max_file_mb * MIB) return;
    if (this.file?.path === current) await this.closeFile();
    await rename(current, rotatedPath(current));
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
